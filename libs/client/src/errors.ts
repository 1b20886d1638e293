/** An answer of the API that is not a success, with the platform's error body. */
export class KnowledgeApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>) {
    super(typeof body.error === 'string' ? body.error : `HTTP ${status}`);
    this.name = 'KnowledgeApiError';
    this.status = status;
    this.code = typeof body.code === 'string' ? body.code : 'HTTP_ERROR';
    this.body = body;
  }
}

/** What the Cloud answers for a workspace whose data lives in a hosted zone. */
export interface HostedZoneRequired {
  hostedZoneId: string;
  endpointUrl: string;
}

export function hostedZoneOf(err: unknown): HostedZoneRequired | undefined {
  if (!(err instanceof KnowledgeApiError) || err.status !== 409 || err.code !== 'HOSTED_ZONE_REQUIRED')
    return undefined;
  const { hostedZoneId, endpointUrl } = err.body as Partial<HostedZoneRequired>;
  return typeof hostedZoneId === 'string' && typeof endpointUrl === 'string'
    ? { hostedZoneId, endpointUrl }
    : undefined;
}
