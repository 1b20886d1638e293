import { describe, expect, it } from 'vitest';
import { AppError, serviceTimeout, serviceUnavailable } from '@kw/platform-errors';
import { buildErrorResponse } from './error-response.js';

const oauth = (status: number, code: string) => new AppError({ status, code, message: 'why' });

describe('error bodies of agent authentication’s protocol routes', () => {
  it('answers RFC 6749 errors on /oauth2/* and /agent/identity*, never cached', () => {
    for (const url of ['/oauth2/token', '/oauth2/revoke?x=1', '/agent/identity', '/agent/identity/claim']) {
      const answer = buildErrorResponse(oauth(400, 'slow_down'), url);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'slow_down', error_description: 'why' });
      expect(answer.headers['cache-control']).toBe('no-store');
    }
  });

  it('maps the platform’s own codes on those routes by status', () => {
    expect(buildErrorResponse(oauth(400, 'VALIDATION_FAILED'), '/oauth2/token').body.error).toBe('invalid_request');
    expect(buildErrorResponse(oauth(415, 'UNSUPPORTED_MEDIA_TYPE'), '/oauth2/token').body.error).toBe(
      'invalid_request',
    );
    expect(buildErrorResponse(oauth(429, 'RATE_LIMITED'), '/agent/identity').body.error).toBe(
      'temporarily_unavailable',
    );
    const unexpected = buildErrorResponse(new Error('boom'), '/oauth2/token');
    expect(unexpected.status).toBe(500);
    expect(unexpected.body.error).toBe('server_error');
    expect(String(unexpected.body.error_description)).not.toContain('boom');
  });

  it('answers RFC 8935 errors on SET delivery', () => {
    expect(buildErrorResponse(oauth(400, 'invalid_key'), '/agent/event/notify').body).toEqual({
      err: 'invalid_key',
      description: 'why',
    });
    expect(buildErrorResponse(oauth(415, 'UNSUPPORTED_MEDIA_TYPE'), '/agent/event/notify').body.err).toBe(
      'invalid_request',
    );
  });

  it('keeps the platform shape elsewhere, the claim decision route included', () => {
    const answer = buildErrorResponse(oauth(409, 'CONFLICT'), '/api/agent-claims/x/decision');
    expect(answer.body).toEqual({ error: 'why', code: 'CONFLICT' });
    expect(buildErrorResponse(oauth(404, 'NOT_FOUND'), '/agent/claim/x').body).toEqual({
      error: 'why',
      code: 'NOT_FOUND',
    });
  });
});

describe('Retry-After on 503 and 504', () => {
  const routes = ['/api/workspaces', '/api/v1/chat/completions', '/oauth2/token', '/agent/event/notify'];

  it('a component that did not answer in time (504) says when to retry, on every route shape', () => {
    for (const url of routes) {
      const answer = buildErrorResponse(serviceTimeout('agent-auth'), url);
      expect(answer.status, url).toBe(504);
      expect(answer.headers['retry-after'], url).toBe('2');
    }
  });

  it('a 503 or 504 keeps a time of its own, and the header never shows in the body', () => {
    const draining = new AppError({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: 'draining',
      details: { retryAfterSeconds: 1 },
    });
    expect(buildErrorResponse(draining, '/api/workspaces').headers['retry-after']).toBe('1');
    expect(buildErrorResponse(serviceUnavailable('chat'), '/api/v1/models').headers['retry-after']).toBe('2');
    expect(buildErrorResponse(serviceTimeout('chat'), '/api/workspaces').body).toEqual({
      error: 'The chat service did not answer in time',
      code: 'SERVICE_TIMEOUT',
    });
    expect(buildErrorResponse(oauth(409, 'CONFLICT'), '/api/workspaces').headers['retry-after']).toBeUndefined();
  });
});
