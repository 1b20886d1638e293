import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import { clientCredentials, oauthParams } from './oauth-params.js';

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return AppError.isAppError(err) ? [err.status, err.code] : ['not an AppError'];
  }
  return ['no error'];
};

describe('OAuth request parameters', () => {
  it('keeps the known string parameters, ignores unknown ones, refuses non-strings', () => {
    expect(oauthParams({ grant_type: 'x', extra: 1, scope: '' }, ['grant_type', 'scope'])).toEqual({ grant_type: 'x' });
    expect(codeOf(() => oauthParams({ grant_type: ['a'] }, ['grant_type']))).toEqual([400, 'invalid_request']);
    expect(codeOf(() => oauthParams([], ['grant_type']))).toEqual([400, 'invalid_request']);
  });

  it('reads client authentication: Basic (url-encoded), body, client_id alone, or none', () => {
    expect(clientCredentials(basic('app:1', 's+cr%t'), {})).toEqual({
      clientAuthMethod: 'client_secret_basic',
      clientId: 'app:1',
      clientSecret: 's+cr%t',
    });
    expect(clientCredentials(undefined, { client_id: 'a', client_secret: 's' })).toEqual({
      clientAuthMethod: 'client_secret_post',
      clientId: 'a',
      clientSecret: 's',
    });
    expect(clientCredentials(undefined, { client_id: 'a' })).toEqual({ clientAuthMethod: 'none', clientId: 'a' });
    expect(clientCredentials(undefined, {})).toEqual({ clientAuthMethod: '' });
  });

  it('refuses two methods at once, another scheme, and a client_id that contradicts Basic', () => {
    expect(codeOf(() => clientCredentials(basic('a', 's'), { client_secret: 's' }))).toEqual([400, 'invalid_request']);
    expect(codeOf(() => clientCredentials('Bearer kwp_x', {}))).toEqual([400, 'invalid_request']);
    expect(codeOf(() => clientCredentials(basic('a', 's'), { client_id: 'b' }))).toEqual([400, 'invalid_request']);
    expect(codeOf(() => clientCredentials(`Basic ${Buffer.from('no-colon').toString('base64')}`, {}))).toEqual([
      401,
      'invalid_client',
    ]);
  });
});
