import { Inject, Injectable } from '@nestjs/common';
import { createLocalJWKSet, createRemoteJWKSet, customFetch, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { ConfigError, type AppConfig } from '@kw/platform-config';
import { AppError, ErrorCode, invalidField, notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { publicFetch } from '@kw/platform-net';
import { APP_CONFIG } from '@kw/platform-runtime';
import { ASYMMETRIC_ALGORITHMS } from '../../domain/agent-auth/oauth.js';
import { TrustedIssuersRepository, type TrustedIssuerRow } from '../../persistence/trusted-issuers.repository.js';
import { CredentialChanges } from '../credentials/credential-changes.js';

/** A trusted identity provider, from configuration or added by an administrator. */
export interface TrustedIssuer {
  id: string;
  issuer: string;
  jwksUri?: string;
  jwks?: JSONWebKeySet;
  algorithms: string[];
  allowedClientIds: string[];
  source: 'config' | 'admin';
}

export interface TrustedIssuerInput {
  issuer: string;
  jwksUri?: string;
  jwks?: unknown;
  algorithms?: string[];
  allowedClientIds?: string[];
}

/** How long a fetched JWKS is used before it is fetched again; an unknown kid refetches sooner (after the cooldown). */
const JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;
const JWKS_COOLDOWN_MS = 30_000;

/**
 * The identity providers whose signed JWTs (ID-JAGs, SETs) the platform trusts, and their keys.
 * Configured ones (AGENT_TRUSTED_ISSUERS) are read once at start; administrator-added ones are
 * read from the database at each use, so every replica sees an addition or removal at once.
 * JWKS are fetched with jose (cached, refetched on an unknown kid) through publicFetch: only
 * public HTTPS addresses, as for webhook targets, unless AGENT_JWKS_ALLOW_PRIVATE (tests).
 */
@Injectable()
export class TrustedIssuers {
  private readonly configured: TrustedIssuer[];
  private readonly keySets = new Map<string, { fingerprint: string; keys: JWTVerifyGetKey }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: TrustedIssuersRepository,
    private readonly changes: CredentialChanges,
  ) {
    this.configured = parseConfigured(config.AGENT_TRUSTED_ISSUERS);
  }

  async find(issuer: string): Promise<TrustedIssuer | undefined> {
    const configured = this.configured.find((i) => i.issuer === issuer);
    if (configured) return configured;
    const row = await this.repository.findByIssuer(issuer);
    return row ? fromRow(row) : undefined;
  }

  async list(): Promise<TrustedIssuer[]> {
    return [...this.configured, ...(await this.repository.list()).map(fromRow)];
  }

  async add(input: TrustedIssuerInput): Promise<TrustedIssuer> {
    const issuer = normalise(input, (field, problem) => {
      throw invalidField(field, problem);
    });
    if (this.configured.some((i) => i.issuer === issuer.issuer) || (await this.repository.findByIssuer(issuer.issuer)))
      throw new AppError({ status: 409, code: ErrorCode.CONFLICT, message: 'This issuer is already trusted' });
    const row = await this.repository.create({
      issuer: issuer.issuer,
      jwksUri: issuer.jwksUri ?? null,
      jwks: issuer.jwks ?? null,
      algorithms: issuer.algorithms,
      allowedClientIds: issuer.allowedClientIds,
    });
    return fromRow(row);
  }

  /**
   * Stops trusting an added issuer. What its assertions granted is revoked with it (an
   * administrator un-trusts a provider because it can no longer be believed) and every gateway
   * drops those grants' cached tokens.
   */
  async remove(id: string, now = new Date()): Promise<void> {
    const revoked = isUuid(id)
      ? await this.repository.removeWithGrants(id, 'identity provider no longer trusted', now)
      : null;
    if (!revoked) throw notFound('Trusted issuer');
    if (revoked.length > 0) await this.changes.tokensChanged(...revoked);
  }

  /** The issuer's verification keys (jose key resolver), reused across calls while its settings are unchanged. */
  keysOf(issuer: TrustedIssuer): JWTVerifyGetKey {
    const fingerprint = JSON.stringify([issuer.jwksUri, issuer.jwks]);
    const cached = this.keySets.get(issuer.issuer);
    if (cached?.fingerprint === fingerprint) return cached.keys;
    const policy = { allowPrivate: this.config.AGENT_JWKS_ALLOW_PRIVATE === true };
    const keys = issuer.jwks
      ? createLocalJWKSet(issuer.jwks)
      : createRemoteJWKSet(new URL(issuer.jwksUri!), {
          cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
          cooldownDuration: JWKS_COOLDOWN_MS,
          [customFetch]: (url: string, init: RequestInit) => publicFetch(url, init, policy),
        });
    this.keySets.set(issuer.issuer, { fingerprint, keys });
    return keys;
  }
}

function fromRow(row: TrustedIssuerRow): TrustedIssuer {
  return {
    id: row.id,
    issuer: row.issuer,
    jwksUri: row.jwksUri ?? undefined,
    jwks: (row.jwks as JSONWebKeySet | null) ?? undefined,
    algorithms: row.algorithms,
    allowedClientIds: row.allowedClientIds,
    source: 'admin',
  };
}

/** Checks one issuer's settings; `fail(field, problem)` throws. */
function normalise(
  input: TrustedIssuerInput,
  fail: (field: string, problem: string) => never,
): Omit<TrustedIssuer, 'id' | 'source'> {
  if (typeof input.issuer !== 'string' || !/^https?:\/\/[^\s]+$/.test(input.issuer) || input.issuer.length > 500)
    fail('issuer', 'must be the issuer identifier, an http(s) URL of at most 500 characters');
  if ((input.jwksUri === undefined) === (input.jwks === undefined))
    fail('jwksUri', 'give exactly one of jwksUri and jwks');
  if (input.jwksUri !== undefined && (typeof input.jwksUri !== 'string' || !/^https?:\/\/[^\s]+$/.test(input.jwksUri)))
    fail('jwksUri', 'must be an http(s) URL');
  let jwks: JSONWebKeySet | undefined;
  if (input.jwks !== undefined) {
    const value = typeof input.jwks === 'string' ? safeParse(input.jwks) : input.jwks;
    const keys = (value as { keys?: unknown } | undefined)?.keys;
    if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'object' || k === null))
      fail('jwks', 'must be a JWK set {keys: [...]} of public keys');
    if (!keys.every(isPublicKey))
      fail(
        'jwks',
        `public keys only: kty ${PUBLIC_KEY_TYPES.join(', ')} without private members ` +
          `(${PRIVATE_MEMBERS.join(', ')}); a symmetric (oct) key is a secret`,
      );
    jwks = value as JSONWebKeySet;
  }
  const algorithms = input.algorithms?.length ? [...new Set(input.algorithms)] : ['RS256', 'ES256'];
  const refused = algorithms.filter((a) => !(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(a));
  if (refused.length > 0) fail('algorithms', `asymmetric signature algorithms only; refused: ${refused.join(', ')}`);
  const allowedClientIds = [...new Set(input.allowedClientIds ?? [])];
  if (allowedClientIds.some((c) => typeof c !== 'string' || c.length === 0 || c.length > 200))
    fail('allowedClientIds', 'client ids are strings of 1 to 200 characters');
  return { issuer: input.issuer, jwksUri: input.jwksUri, jwks, algorithms, allowedClientIds };
}

/** The asymmetric key types (RFC 7518 §6, RFC 8037): `oct` is a shared secret, never a verification key here. */
const PUBLIC_KEY_TYPES = ['RSA', 'EC', 'OKP'] as const;
/** JWK members that carry private or secret material (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

const isPublicKey = (key: object): boolean =>
  (PUBLIC_KEY_TYPES as readonly unknown[]).includes((key as { kty?: unknown }).kty) &&
  PRIVATE_MEMBERS.every((m) => !(m in key));

/**
 * A key set as it may be shown (answers, listings): private and secret members left out, so
 * even a key stored before they were refused never shows its secret.
 */
export function shownKeys(jwks: JSONWebKeySet): JSONWebKeySet {
  return {
    ...jwks,
    keys: jwks.keys.map(
      (key) =>
        Object.fromEntries(
          Object.entries(key).filter(([m]) => !(PRIVATE_MEMBERS as readonly string[]).includes(m)),
        ) as JSONWebKeySet['keys'][number],
    ),
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** AGENT_TRUSTED_ISSUERS: a bad value stops the start with a configuration error naming it. */
function parseConfigured(text: string | undefined): TrustedIssuer[] {
  if (!text) return [];
  const list = safeParse(text);
  if (!Array.isArray(list)) throw new ConfigError(['AGENT_TRUSTED_ISSUERS: must be a JSON array of issuers']);
  return list.map((entry, index) => ({
    id: '',
    source: 'config' as const,
    ...normalise((entry ?? {}) as TrustedIssuerInput, (field, problem) => {
      throw new ConfigError([`AGENT_TRUSTED_ISSUERS[${index}].${field}: ${problem}`]);
    }),
  }));
}
