/** A contract message as plain JSON: protobuf-es messages carry a `$typeName` the HTTP answer must not show. */
export function plainJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(plainJson) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== '$typeName')
      .map(([key, v]) => [key, plainJson(v)]),
  ) as T;
}
