/**
 * Fails when an answer shows a contract message's internals: protobuf-es messages carry a
 * `$typeName` that an HTTP answer must map away. The suites' JSON helpers all check it, so
 * every route they call is checked for the leak.
 */
export function assertNoContractInternals(text: string, what: string): void {
  if (text.includes('"$typeName"')) throw new Error(`${what}: the answer leaks $typeName: ${text.slice(0, 300)}`);
}

/** Reads a JSON body for assertions (tests inspect arbitrary shapes, so it is untyped on purpose). */
export async function readJson(res: Response): Promise<any> {
  const text = await res.text();
  assertNoContractInternals(text, res.url);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`expected JSON, got ${res.status}: ${text.slice(0, 300)}`);
  }
}
