import { ClientRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC 2.0's codes for a message that is none, and for a request's wrong parameters. */
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

/** What the endpoint answers itself, before the SDK transport sees the message. */
export interface RpcRefusal {
  status: number;
  body: { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string; data?: unknown } };
}

type Issue = { path: PropertyKey[]; message: string; code?: string; input?: unknown };

/** The SDK's schema of each request a client may send, by method (the same the SDK validates with). */
const REQUEST_SCHEMAS = new Map(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema] as const),
);

/** What each request needs in `params` when it is left out entirely: said in the message. */
const PARAMS_HINT: Record<string, string> = {
  initialize: ' (initialize needs params.protocolVersion, params.capabilities and params.clientInfo)',
  'tools/call': ' (tools/call needs params.name, the tool, and params.arguments, an object)',
  'resources/read': ' (resources/read needs params.uri)',
};

/**
 * JSON-RPC 2.0's answer to a JSON value that is no JSON-RPC message (or a batch holding one):
 * 400 `-32600` Invalid Request. The SDK transport answers it -32700 "Parse error", which is for
 * text that is not JSON. Undefined: a message (or a batch of them).
 */
export function invalidMessage(body: unknown): RpcRefusal | undefined {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > 0 && messages.every((m) => JSONRPCMessageSchema.safeParse(m).success)) return undefined;
  return {
    status: 400,
    body: {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: INVALID_REQUEST,
        message:
          'Invalid Request: not a JSON-RPC 2.0 message (jsonrpc "2.0", a method, and for a request an id that is a string or a number)',
      },
    },
  };
}

/**
 * A request whose params its method's schema refuses (the SDK's own schemas): `-32602` Invalid
 * params naming the first field (`data.field`), as the request's JSON-RPC response (HTTP 200).
 * The SDK would answer -32603 "Internal error" with the validator's raw issue list. Undefined:
 * valid, a notification, a batch, or a method the SDK answers itself (unknown: -32601).
 */
export function invalidParams(body: unknown): RpcRefusal | undefined {
  if (Array.isArray(body)) return undefined;
  const message = body as { id?: string | number; method?: string; params?: unknown };
  const schema = message.id !== undefined && message.method ? REQUEST_SCHEMAS.get(message.method) : undefined;
  const parsed = schema?.safeParse({ method: message.method, params: message.params });
  if (!parsed || parsed.success) return undefined;
  const issue = parsed.error.issues[0] as Issue;
  const field = issue.path.map(String).join('.') || 'params';
  const missing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
  const reason = missing ? 'is required' : issue.message.replace(/^Invalid input: /, '');
  const hint = missing && field === 'params' ? (PARAMS_HINT[message.method!] ?? '') : '';
  return {
    status: 200,
    body: {
      jsonrpc: '2.0',
      id: message.id!,
      error: { code: INVALID_PARAMS, message: `Invalid params: ${field}: ${reason}${hint}`, data: { field } },
    },
  };
}
