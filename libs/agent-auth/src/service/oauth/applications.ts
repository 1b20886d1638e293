import { Inject, Injectable } from '@nestjs/common';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  ApplicationSchema,
  CreateApplicationRequest,
  RegisterClientRequest,
  UpdateApplicationRequest,
} from '@kw/contracts';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, ErrorCode, invalidField, notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { APP_CONFIG } from '@kw/platform-runtime';
import { AGENT_SCOPES, DEFAULT_AGENT_SCOPES } from '../../domain/agent-auth/agent-scopes.js';
import { MAX_REDIRECT_URIS, redirectUriProblem } from '../../domain/agent-auth/redirect-uris.js';
import { CLIENT_SECRET_PREFIX, generateToken } from '../../domain/tokens/token-format.js';
import {
  OAuthApplicationsRepository,
  type ApplicationChanges,
  type ApplicationRow,
} from '../../persistence/oauth-applications.repository.js';
import { AgentGrantsRepository } from '../../persistence/agent-grants.repository.js';
import { CallerAccounts } from '../caller-accounts.js';
import { CredentialChanges } from '../credentials/credential-changes.js';

type ApplicationMessage = MessageInitShape<typeof ApplicationSchema>;

const HOUR_MS = 3_600_000;
const NAME_MAX = 100;
const DESCRIPTION_MAX = 1000;

/**
 * OAuth applications: registered by users (`applications:manage`) or by MCP clients themselves
 * (RFC 7591). A confidential client's secret is shown once and stored as its SHA-256; rotating
 * keeps the previous one working for an overlap. Deleting an application revokes every grant
 * made through it; disabling (`status: disabled`) stops new authorizations, token requests and
 * the use of its live access tokens, and keeps the grants, which work again when it is enabled.
 */
@Injectable()
export class Applications {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly callers: CallerAccounts,
    private readonly applications: OAuthApplicationsRepository,
    private readonly changes: CredentialChanges,
    private readonly grants: AgentGrantsRepository,
  ) {}

  async list(context: RequestContext): Promise<ApplicationMessage[]> {
    const { user } = await this.callers.require(context, 'applications:manage');
    return (await this.applications.listOwned(user.id)).map(toApplicationMessage);
  }

  async get(id: string, context: RequestContext): Promise<ApplicationMessage> {
    return toApplicationMessage(await this.owned(id, context));
  }

  async create(input: CreateApplicationRequest, context: RequestContext) {
    const { user } = await this.callers.require(context, 'applications:manage');
    const clientType = input.clientType === 'public' ? 'public' : 'confidential';
    const secret = clientType === 'confidential' ? generateToken(CLIENT_SECRET_PREFIX) : undefined;
    const row = await this.applications.create({
      ownerId: user.id,
      name: checkedName(input.name),
      description: checkedDescription(input.description),
      homepageUrl: checkedHomepage(input.homepageUrl),
      redirectUris: checkedRedirectUris(input.redirectUris, (field, problem) => invalidField(field, problem)),
      clientType,
      tokenEndpointAuthMethod: clientType === 'confidential' ? 'client_secret_basic' : 'none',
      scopes: checkedScopes(input.scopes),
      secretHash: secret?.tokenHash ?? null,
      secretPrefix: secret?.displayPrefix ?? null,
      registeredFrom: null,
    });
    return { application: toApplicationMessage(row), clientSecret: secret?.token };
  }

  async update(input: UpdateApplicationRequest, context: RequestContext): Promise<ApplicationMessage> {
    const current = await this.owned(input.id, context);
    const changes: ApplicationChanges = {};
    if (input.name !== undefined) changes.name = checkedName(input.name);
    if (input.description !== undefined) changes.description = checkedDescription(input.description);
    if (input.homepageUrl !== undefined) changes.homepageUrl = checkedHomepage(input.homepageUrl);
    if (input.redirectUris) changes.redirectUris = checkedRedirectUris(input.redirectUris.values, invalidField);
    // An empty list is refused, not read as "the defaults": narrowing to nothing must never widen.
    if (input.scopes) {
      if (input.scopes.values.length === 0) throw invalidField('scopes', 'must name at least one scope');
      changes.scopes = checkedScopes(input.scopes.values);
    }
    if (input.status !== undefined) {
      if (input.status !== 'active' && input.status !== 'disabled')
        throw invalidField('status', 'must be active or disabled');
      changes.status = input.status;
    }
    const row = await this.applications.update(current.id, changes);
    // Disabled: its tokens stop at once, so no gateway may keep them cached.
    if (current.status === 'active' && row.status === 'disabled') {
      const grantIds = await this.grants.liveIdsOfApplication(row.id);
      if (grantIds.length > 0) await this.changes.tokensChanged(...grantIds);
    }
    return toApplicationMessage(row);
  }

  async delete(id: string, context: RequestContext, now = new Date()): Promise<void> {
    const current = await this.owned(id, context);
    const revoked = await this.applications.delete(current.id, now);
    if (revoked.length > 0) await this.changes.tokensChanged(...revoked);
  }

  async rotateSecret(id: string, overlapHours: number, context: RequestContext, now = new Date()) {
    const current = await this.owned(id, context);
    if (current.clientType !== 'confidential')
      throw new AppError({ status: 409, code: ErrorCode.CONFLICT, message: 'A public client has no secret' });
    if (overlapHours > 168) throw invalidField('overlapHours', 'at most 168 hours');
    const secret = generateToken(CLIENT_SECRET_PREFIX);
    const row = await this.applications.rotateSecret(
      current.id,
      secret.tokenHash,
      secret.displayPrefix,
      overlapHours > 0 ? new Date(now.getTime() + overlapHours * HOUR_MS) : null,
    );
    return { application: toApplicationMessage(row), clientSecret: secret.token };
  }

  /**
   * RFC 7591 registration, for MCP clients that arrive knowing only the server's URL. Limits:
   * OAUTH_REGISTRATIONS_PER_HOUR per address (counted when the client is written, so a burst
   * cannot pass it; metadata is checked first); the redirect URI rules of user-registered
   * applications; the scopes an agent may hold; expiry when unused (ExpiredRowsSweeper).
   */
  async register(input: RegisterClientRequest, now = new Date()) {
    const method = input.tokenEndpointAuthMethod || 'client_secret_basic';
    if (!['none', 'client_secret_basic', 'client_secret_post'].includes(method))
      throw registrationError(
        'invalid_client_metadata',
        'token_endpoint_auth_method must be none, client_secret_basic or client_secret_post',
      );
    if (input.grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))
      throw registrationError('invalid_client_metadata', 'grant_types may be authorization_code and refresh_token');
    if (input.responseTypes.some((r) => r !== 'code'))
      throw registrationError('invalid_client_metadata', 'response_types may only be code');
    const redirectUris = checkedRedirectUris(input.redirectUris, (_field, problem) =>
      registrationError('invalid_redirect_uri', `redirect_uris ${problem}`),
    );
    let scopes = [...DEFAULT_AGENT_SCOPES];
    if (input.scope?.trim()) {
      const asked = [...new Set(input.scope.trim().split(/\s+/))];
      const refused = asked.filter((s) => !AGENT_SCOPES.includes(s));
      if (refused.length > 0)
        throw registrationError('invalid_client_metadata', `Scopes a client cannot hold: ${refused.join(' ')}`);
      scopes = asked;
    }
    const name = (input.clientName || 'MCP client').trim().slice(0, NAME_MAX);
    const clientType = method === 'none' ? 'public' : 'confidential';
    const secret = clientType === 'confidential' ? generateToken(CLIENT_SECRET_PREFIX) : undefined;
    const registered = await this.applications.createRegisteredWithin(
      {
        ownerId: null,
        name,
        description: '',
        homepageUrl: input.clientUri && /^https:\/\/\S+$/.test(input.clientUri) ? input.clientUri.slice(0, 2000) : null,
        redirectUris,
        clientType,
        tokenEndpointAuthMethod: method,
        scopes,
        secretHash: secret?.tokenHash ?? null,
        secretPrefix: secret?.displayPrefix ?? null,
        registeredFrom: input.ip,
      },
      new Date(now.getTime() - HOUR_MS),
      this.config.OAUTH_REGISTRATIONS_PER_HOUR,
    );
    const row = registered.row;
    if (!row) {
      // Retry-After says when a place frees: the hour after the registration that leaves first.
      const freesAt = registered.limitedSince ? registered.limitedSince.getTime() + HOUR_MS : now.getTime() + HOUR_MS;
      throw new AppError({
        status: 429,
        code: 'temporarily_unavailable',
        message: 'Too many client registrations from this address; try again later',
        details: { retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)) },
      });
    }
    return {
      application: toApplicationMessage(row),
      clientSecret: secret?.token,
      clientIdIssuedAt: BigInt(Math.floor(row.createdAt.getTime() / 1000)),
    };
  }

  private async owned(id: string, context: RequestContext): Promise<ApplicationRow> {
    const { user } = await this.callers.require(context, 'applications:manage');
    const row = isUuid(id) ? await this.applications.findOwned(id, user.id) : null;
    if (!row) throw notFound('Application');
    return row;
  }
}

export function toApplicationMessage(row: ApplicationRow): ApplicationMessage {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    homepageUrl: row.homepageUrl ?? undefined,
    redirectUris: row.redirectUris,
    clientType: row.clientType,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
    scopes: row.scopes,
    secretPrefix: row.secretPrefix ?? undefined,
    previousSecretExpiresAt: row.previousSecretExpiresAt?.toISOString(),
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString(),
  };
}

/** RFC 7591 §3.2.2 errors, rendered like the token endpoint's. */
const registrationError = (code: 'invalid_redirect_uri' | 'invalid_client_metadata', message: string) =>
  new AppError({ status: 400, code, message });

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > NAME_MAX) throw invalidField('name', `1 to ${NAME_MAX} characters`);
  return trimmed;
}

function checkedDescription(description: string): string {
  if (description.length > DESCRIPTION_MAX) throw invalidField('description', `at most ${DESCRIPTION_MAX} characters`);
  return description;
}

function checkedHomepage(url: string | undefined): string | null {
  if (url === undefined || url === '') return null;
  if (!/^https?:\/\/\S+$/.test(url) || url.length > 2000) throw invalidField('homepageUrl', 'must be an http(s) URL');
  return url;
}

function checkedRedirectUris(uris: string[], error: (field: string, problem: string) => AppError): string[] {
  const unique = [...new Set(uris)];
  if (unique.length === 0 || unique.length > MAX_REDIRECT_URIS)
    throw error('redirectUris', `1 to ${MAX_REDIRECT_URIS} redirect URIs`);
  for (const uri of unique) {
    const problem = redirectUriProblem(uri);
    if (problem) throw error('redirectUris', `${uri} ${problem}`);
  }
  return unique;
}

/** The scopes an application may ask for; none given (create only: omitted) means the agent defaults. */
function checkedScopes(scopes: string[]): string[] {
  const unique = [...new Set(scopes)];
  if (unique.length === 0) return [...DEFAULT_AGENT_SCOPES];
  const refused = unique.filter((s) => !AGENT_SCOPES.includes(s));
  if (refused.length > 0) throw invalidField('scopes', `scopes an application cannot hold: ${refused.join(', ')}`);
  return unique;
}
