import { AppError } from '@kw/platform-errors';
import { describe, expect, it } from 'vitest';
import { abortError, modelNotFound, parseRetryAfter, upstreamError, upstreamHttpError } from './model-errors.js';

const OPERATOR_KEY = 'sk-operator-mock-key-123456';
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('model errors', () => {
  it('builds the documented errors', () => {
    const failed = upstreamError('openai', 'HTTP 500');
    expect(failed).toBeInstanceOf(AppError);
    expect(failed.toJSON()).toEqual({
      status: 502,
      code: 'UPSTREAM_ERROR',
      message: 'The model provider "openai" failed: HTTP 500',
      details: undefined,
      param: undefined,
    });
    expect(modelNotFound('gpt-x')).toMatchObject({ status: 404, code: 'MODEL_NOT_FOUND', param: 'model' });
    expect(abortError()).toMatchObject({ name: 'AbortError' });
  });

  it('keeps 300 characters of the provider’s message for the log only, scrubs the key sent, and drops HTML pages', () => {
    const long = JSON.stringify({ error: { message: `key sk-secret-1 refused ${'x'.repeat(400)}` } });
    const err = upstreamHttpError('openai', 401, long, undefined, 'sk-secret-1');
    expect(err.message).toBe('The model provider "openai" failed: HTTP 401');
    expect(err.providerSaid).not.toContain('sk-secret-1');
    expect(err.providerSaid).toContain('key *** refused');
    expect(err.providerSaid!.length).toBeLessThanOrEqual(300);
    expect(JSON.stringify(err.toJSON())).not.toContain('refused');
    expect(
      upstreamHttpError('openai', 502, '<html><body>Bad gateway</body></html>', undefined, undefined).message,
    ).toBe('The model provider "openai" failed: HTTP 502');
    expect(upstreamHttpError('a', 422, '{"detail": "bad field"}', undefined, undefined)).toMatchObject({
      status: 400,
      code: 'UPSTREAM_REJECTED',
      message: 'The model provider "a" rejected the request: bad field',
    });
    expect(upstreamHttpError('a', 503, '', 1000, undefined)).toMatchObject({ retryable: true, retryAfterMs: 1000 });
    expect(upstreamHttpError('a', 404, '', undefined, undefined)).toMatchObject({ status: 502, retryable: false });
  });

  it('reads Retry-After as seconds, as an HTTP date, or retry-after-ms', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(undefined, '150')).toBe(150);
    const inFive = new Date(Date.now() + 5000).toUTCString();
    expect(parseRetryAfter(inFive)).toBeGreaterThan(3000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('an upstream 400 passed on to the caller carries neither the key nor its base64, prefix or reversed forms', () => {
    const body = JSON.stringify({
      error: {
        message: `bad: ${OPERATOR_KEY} / ${base64(OPERATOR_KEY)} / ${OPERATOR_KEY.slice(0, 20)} / ${OPERATOR_KEY.split('').reverse().join('')}`,
      },
    });
    const err = upstreamHttpError('mock', 400, body, undefined, OPERATOR_KEY);
    expect(err).toMatchObject({ status: 400, code: 'UPSTREAM_REJECTED' });
    expect(err.message).not.toContain(OPERATOR_KEY.slice(0, 12));
    expect(err.message).not.toContain(base64(OPERATOR_KEY).slice(0, 12));
    expect(err.message).toBe('The model provider "mock" rejected the request: bad: *** / *** / *** / ***');
  });
});
