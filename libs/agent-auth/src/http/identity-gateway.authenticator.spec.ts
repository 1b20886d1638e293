import { describe, expect, it } from 'vitest';
import { AppError } from '@kw/platform-errors';
import type { ServiceClient } from '@kw/platform-transport';
import { generateToken } from '../domain/tokens/token-format.js';
import { IdentityGatewayAuthenticator } from './identity-gateway.authenticator.js';

/** A ServiceClient that records the messages it would send. */
function recordingClient() {
  const sent: string[] = [];
  const client = {
    async call(method: { name: string }) {
      sent.push(method.name);
      return {
        caller: {
          auth: {
            userId: 'u1',
            credentialId: 't1',
            credentialKind: 'pat',
            scopes: ['*'],
            allWorkspaces: true,
            workspaceIds: [],
          },
          user: { id: 'u1' },
        },
      };
    },
  } as unknown as ServiceClient;
  return { client, sent };
}

describe('IdentityGatewayAuthenticator (gateway side)', () => {
  it('refuses a kwp_ token with a bad checksum before sending any message', async () => {
    const { client, sent } = recordingClient();
    const { token } = generateToken();
    const broken = `${token.slice(0, 10)}${token[10] === 'Z' ? 'Y' : 'Z'}${token.slice(11)}`;
    const err = await new IdentityGatewayAuthenticator(client).authenticateBearer(broken, '').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(401);
    expect(sent).toEqual([]);
  });

  it('refuses short opaque strings without a message, and asks IdentityService about well-formed tokens', async () => {
    const { client, sent } = recordingClient();
    const authenticator = new IdentityGatewayAuthenticator(client);
    await expect(authenticator.authenticateBearer('too-short', '')).rejects.toBeInstanceOf(AppError);
    expect(sent).toEqual([]);
    const caller = await authenticator.authenticateBearer(generateToken().token, '127.0.0.1');
    expect(caller.auth.userId).toBe('u1');
    expect(sent).toEqual(['AuthenticateToken']);
  });
});
