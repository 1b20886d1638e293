/** The parts of an OpenAPI 3.1 document the fuzz suite reads. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
}

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>
  >;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every operation of the document, with `$ref`s of its body resolved (one level at a time, on demand). */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const body = op.requestBody?.content?.['application/json']?.schema;
      out.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], body });
    }
  }
  return out;
}

export function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    const name = current.$ref.split('/').pop()!;
    current = doc.components?.schemas?.[name] ?? {};
  }
  if (current.allOf?.length)
    return current.allOf.reduce<Schema>((merged, part) => {
      const r = resolve(doc, part);
      return {
        ...merged,
        ...r,
        properties: { ...merged.properties, ...r.properties },
        required: [...(merged.required ?? []), ...(r.required ?? [])],
      };
    }, {});
  return current;
}

const typeOf = (schema: Schema): string | undefined => {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
};

/**
 * A plausible value for a schema (what a well-behaved client would send), so that hostile
 * variations of one field reach validation and handlers instead of failing on another field.
 */
export function plausible(
  doc: OpenApiDocument,
  raw: Schema | undefined,
  ids: { uuid: () => string },
  depth = 0,
): unknown {
  const schema = resolve(doc, raw);
  const variant = schema.oneOf?.[0] ?? schema.anyOf?.[0];
  if (variant) return plausible(doc, variant, ids, depth);
  if (schema.enum?.length) return schema.enum[0];
  switch (typeOf(schema)) {
    case 'string':
      if (schema.format === 'uuid') return ids.uuid();
      if (schema.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      if (schema.format === 'email') return 'fuzz@example.test';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.test/hook';
      return 'fuzz'.padEnd(Math.max(schema.minLength ?? 1, 4), 'z').slice(0, schema.maxLength ?? 100);
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return depth > 3 ? [] : [plausible(doc, schema.items, ids, depth + 1)];
    case 'object': {
      if (depth > 3) return {};
      const value: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(schema.properties ?? {}))
        value[name] = plausible(doc, prop, ids, depth + 1);
      return value;
    }
    default:
      return 'fuzz';
  }
}

/** The string-typed properties of a body schema (where hostile text is sent). */
export function stringFields(doc: OpenApiDocument, raw: Schema | undefined): string[] {
  const schema = resolve(doc, raw);
  return Object.entries(schema.properties ?? {})
    .filter(([, prop]) => typeOf(resolve(doc, prop)) === 'string')
    .map(([name]) => name);
}

/** The property names of a body schema. */
export function fieldsOf(doc: OpenApiDocument, raw: Schema | undefined): string[] {
  return Object.keys(resolve(doc, raw).properties ?? {});
}
