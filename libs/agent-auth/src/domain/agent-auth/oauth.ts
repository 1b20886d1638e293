/**
 * The identifiers of agent authentication's protocol (docs/agent-authentication.md). The claim
 * grant lives in the platform's own URN namespace, `urn:kw:` ("kw", the product's short name,
 * as in its token prefixes), as the spec's `urn:<vendor>:agent-auth:grant-type:claim` asks.
 */
export const GRANT_JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const GRANT_CLAIM = 'urn:kw:agent-auth:grant-type:claim';
export const GRANT_REFRESH = 'refresh_token';
export const GRANT_AUTHORIZATION_CODE = 'authorization_code';
export const GRANT_TYPES = [GRANT_AUTHORIZATION_CODE, GRANT_JWT_BEARER, GRANT_CLAIM, GRANT_REFRESH] as const;
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
/** The longest authorization request parameter read; a longer one is refused, never read as absent. */
export const AUTHORIZE_PARAM_MAX = 2000;
/** How long an authorization request waits for the person's decision (seconds). */
export const AUTHORIZATION_REQUEST_TTL_SECONDS = 600;

/** draft-ietf-oauth-identity-assertion-authz-grant: the token type and the JWT `typ` of an ID-JAG. */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** RFC 8417: the `typ` of a Security Event Token; RFC 8935: its media type. */
export const SET_TYP = 'secevent+jwt';
export const SET_MEDIA_TYPE = 'application/secevent+jwt';

export const IDENTITY_TYPES = ['identity_assertion', 'service_auth'] as const;

/**
 * Signature algorithms a trusted issuer may use: asymmetric only. `none` and HMAC are never
 * accepted, so a token "signed" with a public key as an HMAC secret cannot pass.
 */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** Clock difference tolerated on exp, nbf and iat (seconds). */
export const CLOCK_SKEW_SECONDS = 60;
/** An ID-JAG or SET issued longer ago than this is refused even if it does not expire (seconds). */
export const MAX_JWT_AGE_SECONDS = 3600;
/** RFC 8628: what `slow_down` adds to the polling interval (seconds). */
export const SLOW_DOWN_STEP_SECONDS = 5;

/** OpenID Shared Signals event types the platform acts on (docs/agent-authentication.md#security-events). */
export const EVENT_TYPES = {
  sessionRevoked: 'https://schemas.openid.net/secevent/caep/event-type/session-revoked',
  credentialChange: 'https://schemas.openid.net/secevent/caep/event-type/credential-change',
  accountDisabled: 'https://schemas.openid.net/secevent/risc/event-type/account-disabled',
  accountPurged: 'https://schemas.openid.net/secevent/risc/event-type/account-purged',
  credentialChangeRequired: 'https://schemas.openid.net/secevent/risc/event-type/account-credential-change-required',
  identifierChanged: 'https://schemas.openid.net/secevent/risc/event-type/identifier-changed',
} as const;
