import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import {
  getMetadataStorage,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  isFQDN,
  isIP,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validateSync,
  ValidateBy,
} from 'class-validator';
import { parsePlans } from './plans-table.js';

export const RUN_MODES = ['embedded', 'distributed'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** The embedded mode's database server (openDatabase's `engine`, docs/configuration.md). */
export const EMBEDDED_DATABASES = ['auto', 'postgres', 'pglite'] as const;

export const COMPONENTS = [
  'gateway',
  'workspaces',
  'fragments',
  'files',
  'search',
  'chat',
  'agent-auth',
  'webhooks',
] as const;
export type ComponentName = (typeof COMPONENTS)[number];

export const AI_PROVIDERS = ['builtin', 'openai'] as const;

/**
 * A URL setting: http(s) with its scheme. Without require_protocol, class-validator accepts a bare
 * word (`notaurl`, a host name) that `new URL()` then refuses deep inside a component, as a crash
 * instead of a configuration error.
 */
const HTTP_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
/** The spellings a boolean setting accepts (any case); docs/configuration.md lists them. */
const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];
/**
 * A boolean setting: one of the spellings above, else the value unchanged so that @IsBoolean
 * refuses it (`maybe` used to mean false, silently flipping a default such as S3_FORCE_PATH_STYLE).
 */
const toBool = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  const word = String(value).trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  return value;
};
const BOOLEAN = { message: '$property must be true or false (also 1/0, yes/no, on/off)' };

/** An interface to listen on: an IP address or a host name (letters, digits, hyphens, dots). */
const IsHost = () =>
  ValidateBy({
    name: 'isHost',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && (isIP(value) || isFQDN(value, { require_tld: false, allow_numeric_tld: true })),
      defaultMessage: () => 'HOST must be an IP address (0.0.0.0, ::, 127.0.0.1) or a host name',
    },
  });
const toList = ({ value }: { value: unknown }) =>
  value === undefined || value === ''
    ? undefined
    : String(value)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/**
 * Every environment variable the platform reads, validated once at start-up.
 * docs/configuration.md is the reference; the deploy files may set only names declared here
 * (a test checks it).
 */
export class AppConfig {
  /** `embedded`: everything in one process on its own database; `distributed`: one process per component over NATS. */
  @IsIn(RUN_MODES)
  RUN_MODE: RunMode = 'embedded';

  /** Components this process starts (Mimir's -target). Default: all in embedded mode. */
  @IsOptional()
  @Transform(toList)
  @IsIn([...COMPONENTS, 'all'], { each: true })
  TARGETS?: string[];

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsHost()
  HOST = '0.0.0.0';

  /** Public origin used in links (OpenAPI servers, discovery documents). Default http://localhost:PORT. */
  @IsOptional()
  @IsUrl(HTTP_URL)
  PUBLIC_URL?: string;

  /** Folder of the embedded database and local files. */
  @IsString()
  @MinLength(1)
  DATA_DIR = './.data';

  /** Without DATABASE_URL: `postgres` (a PostgreSQL server from the npm package's binaries), `pglite`, or `auto`. */
  @IsIn(EMBEDDED_DATABASES)
  EMBEDDED_DATABASE: (typeof EMBEDDED_DATABASES)[number] = 'auto';

  /** Postgres connection string. Required in distributed mode; embedded mode starts its own server when unset. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  /** NATS server(s), comma separated. Required in distributed mode. */
  @IsOptional()
  @Matches(/^(nats|tls|ws|wss):\/\/[^,\s]+(,(nats|tls|ws|wss):\/\/[^,\s]+)*$/, {
    message: 'NATS_URL must be nats://host:port (comma separated for several)',
  })
  NATS_URL?: string;

  /** Prepended to every NATS subject, so several installations (or test runs) can share one NATS. */
  @IsOptional()
  @Matches(/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/, {
    message: 'NATS_SUBJECT_PREFIX must be dot-separated tokens of a-z, 0-9, _ and -',
  })
  NATS_SUBJECT_PREFIX?: string;

  /**
   * How long a process tries its first connection to NATS before it exits 1 (its supervisor
   * restarts it); 0 waits for ever. Each failed attempt is logged.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  NATS_CONNECT_TIMEOUT_MS = 30_000;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** How long a caller waits for another component to answer before 504. */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(300_000)
  SERVICE_TIMEOUT_MS = 10_000;

  /**
   * How late past its caller's deadline a component still handles a request; a later one is
   * dropped unhandled, as its caller already got 504. Bounds the clock skew between hosts that
   * can drop a request in time: skew beyond the caller's whole timeout plus this.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  REQUEST_DEADLINE_GRACE_MS = 1_000;

  /** Largest JSON request body the gateway accepts (413 above). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 5 * 1024 * 1024;

  /**
   * How long a request body may go without a byte arriving before the gateway answers 408
   * REQUEST_TIMEOUT and closes the connection; a slow upload that keeps sending is never cut by it.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  BODY_IDLE_TIMEOUT_MS = 30_000;

  /**
   * The slowest a request body may arrive, on average, once its client has been sending for
   * BODY_IDLE_TIMEOUT_MS: a body that never goes idle but trickles (a byte every few seconds)
   * would otherwise hold its connection for REQUEST_RECEIVE_TIMEOUT_MS. 0 turns it off.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  BODY_MIN_BYTES_PER_SECOND = 500;

  /**
   * How long receiving one whole request (headers and body) may take: Node's `requestTimeout`.
   * Long enough for FILES_MAX_BYTES over a slow link (100 MiB at about 1 Mbit/s); the answer
   * (a stream included) is not counted.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(24 * 3_600_000)
  REQUEST_RECEIVE_TIMEOUT_MS = 15 * 60_000;

  /** How long receiving a request's line and headers may take: Node's `headersTimeout`. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  HEADERS_TIMEOUT_MS = 60_000;

  /** Grace period for draining requests and messages on SIGTERM. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  /** Separate port for /metrics and probes of non-gateway components (0 = pick a free one). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;

  /**
   * OpenTelemetry traces (docs/operations.md, "Traces"): the OTLP/HTTP collector's base URL,
   * spans go to `<url>/v1/traces`. Unset (and no OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): tracing is off.
   */
  @IsOptional()
  @IsUrl(HTTP_URL)
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** The full URL spans are posted to; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  @IsOptional()
  @IsUrl(HTTP_URL)
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  /** service.name of this process's spans. Default: `kw-<component>` (`kw-gateway`, `kw-fragments`...). */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  OTEL_SERVICE_NAME?: string;

  /** Milliseconds finished spans wait to be exported together (the SDK's default: 5000). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  OTEL_BSP_SCHEDULE_DELAY?: number;

  /** Vector index at scale (search component). Unset: pgvector, or without it an index in the search process's memory. */
  @IsOptional()
  @IsUrl(HTTP_URL)
  QDRANT_URL?: string;

  /**
   * Memory budget, in MB, of the in-process vector index that the search component uses on
   * PostgreSQL without pgvector and without Qdrant (about 1.5 KB per chunk at 384 dimensions).
   * A workspace larger than the budget is searched by exact cosine in SQL; 0 always does that.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65_536)
  VECTOR_MEMORY_MB = 256;

  /**
   * Share of the semantic retriever in hybrid search, of fragments and of files (0..1; the keyword
   * retriever has the rest).
   * Unset: 0.2 with the built-in AI provider (word-hashing vectors rank worse than BM25) and
   * 0.4 with a real embedding model. docs/search.md, "Relevance".
   */
  @IsOptional()
  @Transform(toInt)
  @IsNumber()
  @Min(0)
  @Max(1)
  SEARCH_SEMANTIC_WEIGHT?: number;

  /**
   * A rerank endpoint (the Cohere rerank wire format: Cohere, Jina, Voyage, vLLM, llama.cpp...)
   * that reorders the best hybrid candidates. Unset: no reranking. docs/search.md, "Reranking".
   */
  @IsOptional()
  @IsUrl(HTTP_URL)
  SEARCH_RERANK_URL?: string;

  /** Bearer key sent to SEARCH_RERANK_URL (never logged). */
  @IsOptional()
  @IsString()
  SEARCH_RERANK_API_KEY?: string;

  /** The `model` asked of SEARCH_RERANK_URL (unset: none sent, the endpoint's default). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  SEARCH_RERANK_MODEL?: string;

  /** How many of the best hybrid candidates are reranked; the others follow in fused order. */
  @Transform(toInt)
  @IsInt()
  @Min(2)
  @Max(500)
  SEARCH_RERANK_DEPTH = 50;

  /** How long a search waits for the reranker before answering in fused order. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  SEARCH_RERANK_TIMEOUT_MS = 3_000;

  /**
   * How long a search (workspace or files) waits for the model (AI_PROVIDER=openai): to embed its query, before hybrid
   * search answers from its keyword side alone and semantic search with 502; to widen an agentic
   * search's query, before its own keywords stand. Shorter than AI_TIMEOUT_MS, which bounds
   * enrichment's calls: a person waits on these.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  SEARCH_MODEL_TIMEOUT_MS = 5_000;

  /** S3-compatible object storage for files. Unset: local folder under DATA_DIR. */
  @IsOptional()
  @IsUrl(HTTP_URL)
  S3_ENDPOINT?: string;

  @IsOptional()
  @IsString()
  S3_BUCKET?: string;

  @IsOptional()
  @IsString()
  S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  @IsOptional()
  @IsString()
  S3_REGION?: string;

  /** Path-style bucket addressing (`endpoint/bucket/key`), which MinIO and most local servers need. */
  @Transform(toBool)
  @IsBoolean(BOOLEAN)
  S3_FORCE_PATH_STYLE = true;

  /** Largest file one upload may store (413 as soon as a part goes over). docs/files.md. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  FILES_MAX_BYTES = 100 * 1024 * 1024;

  /** Bytes of files one workspace may keep in all (413 QUOTA_EXCEEDED above). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  FILES_WORKSPACE_QUOTA_BYTES = 10 * 1024 * 1024 * 1024;

  /**
   * How long a files worker holds a file it processes (renewed while it works): after a crash,
   * another worker or the restarted process takes the file over once this has passed.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  FILES_PROCESSING_LEASE_MS = 60_000;

  /**
   * Files one process processes at once (text extraction, chunking, embedding). A free slot
   * takes the waiting file of the workspace with the fewest files in processing, so one
   * workspace's backlog does not hold back another's files (docs/files.md, Processing).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  FILES_PROCESSING_SLOTS = 2;

  /** Wall-clock time one file's text extraction may take before it fails `timeout`. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  FILES_EXTRACTION_TIMEOUT_MS = 60_000;

  /**
   * The XML a DOCX's main document may hold for its text to be extracted; more fails
   * `archive_too_large` before it is inflated (it bounds the CPU of reading one, docs/files.md).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  FILES_DOCX_MAX_XML_BYTES = 64 * 1024 * 1024;

  /**
   * Age after which the files sweeper removes what a crash left: an upload that never completed
   * (its row and blob) and a blob without a file row. Longer than any upload may take.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  FILES_SWEEP_AFTER_MS = 6 * 60 * 60 * 1000;

  /**
   * Memory budget, in MB, of the chunk vectors files search keeps per process to rank files by
   * meaning (about 1.5 KB per chunk at 384 dimensions), the least recently searched workspaces
   * dropped first. A workspace whose files alone exceed it is ranked by its words only; 0 always.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65_536)
  FILES_VECTOR_MEMORY_MB = 128;

  /**
   * How long an export's archive stays downloadable after its job finished; then the archive is
   * deleted from blob storage and the export is `expired` (docs/portable-workspaces.md).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  EXPORT_ARCHIVE_TTL_MS = 24 * 60 * 60 * 1000;

  /**
   * How long the process running an export or import job holds it (renewed while it runs): a job
   * whose process died is failed as interrupted by any process of the component once this has
   * passed (docs/portable-workspaces.md). An uploading import is held for REQUEST_RECEIVE_TIMEOUT_MS
   * more, the longest its upload may take.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  TRANSFER_LEASE_MS = 60_000;

  /**
   * The most the entries an import reads from one archive may unpack to together (a zip bomb's
   * entries can claim far more than the zip): more is refused (`archive too large`) by what the
   * entries declare, before any is inflated (docs/portable-workspaces.md, "What an import inflates").
   */
  @Transform(toInt)
  @IsInt()
  @Min(1024 * 1024)
  IMPORT_MAX_INFLATED_BYTES = 1024 * 1024 * 1024;

  /** Largest JSON body of `POST /api/workspace-files/bytes` (base64 of a 50 MiB file and some). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  FILES_PROXY_BODY_LIMIT_BYTES = 72 * 1024 * 1024;

  /** Leaf only: the Cloud whose keys it trusts, and the one-time enrollment token. */
  @IsOptional()
  @IsUrl(HTTP_URL)
  CLOUD_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(16)
  ENROLLMENT_TOKEN?: string;

  /**
   * Leaf only: seconds between heartbeats to the Cloud. Each one picks up new placements and
   * the Cloud's handoff revocations, so it bounds how long a revoked member keeps access.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  LEAF_HEARTBEAT_SECONDS = 5;

  /**
   * DEVELOPMENT SETTING, off by default: lets a hosted zone's endpoint be plain http. On a Leaf
   * it allows a PUBLIC_URL that is not https (refused at start otherwise); on the Cloud it
   * allows placing workspaces on a zone whose endpoint is not https (409 otherwise). Clients
   * send handoff tokens to that endpoint: never enable in production.
   */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean(BOOLEAN)
  HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS?: boolean;

  /**
   * Enables POST /api/diagnostics/echo and the components' EchoService: a message-path check
   * for operators (and the tests) that can delay or fail on demand. Off by default.
   */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean(BOOLEAN)
  DIAGNOSTICS_ENABLED?: boolean;

  /**
   * Seals secrets the platform uses again (webhook signing secrets and auth headers): 32
   * bytes as 64 hex characters or base64. Required by the webhooks component in the
   * distributed mode; the embedded mode keeps a generated one in DATA_DIR. The PREVIOUS key
   * still opens values sealed before a key change.
   */
  @IsOptional()
  @Matches(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, {
    message: 'SECRETS_ENCRYPTION_KEY must be 32 bytes: 64 hex characters or base64',
  })
  SECRETS_ENCRYPTION_KEY?: string;

  @IsOptional()
  @Matches(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, {
    message: 'SECRETS_ENCRYPTION_KEY_PREVIOUS must be 32 bytes: 64 hex characters or base64',
  })
  SECRETS_ENCRYPTION_KEY_PREVIOUS?: string;

  /**
   * Webhook retry delays after each failed attempt (comma-separated durations: `500ms`, `5s`,
   * `5m`, `2h`). The default follows the Standard Webhooks schedule, about a day in all.
   */
  @IsOptional()
  @Matches(/^\s*\d+(?:ms|s|m|h)\s*(?:,\s*\d+(?:ms|s|m|h)\s*)*$/, {
    message: 'WEBHOOKS_RETRY_SCHEDULE must be comma-separated durations such as 5s,5m,30m,2h',
  })
  WEBHOOKS_RETRY_SCHEDULE?: string;

  /** An endpoint whose deliveries have failed for this long is disabled and its owners told. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  WEBHOOKS_DISABLE_AFTER_HOURS = 120;

  /**
   * TEST SETTING, off by default: lets webhook targets be loopback, private (RFC 1918) or
   * unique-local addresses and `localhost`, so tests can run a receiver on this machine.
   * HTTPS, credential and all other address rules still apply. Never enable in production.
   */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean(BOOLEAN)
  WEBHOOKS_ALLOW_PRIVATE_TARGETS?: boolean;

  /** PEM bundle of CA certificates trusted for webhook deliveries in addition to the default ones (a test or in-house CA). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  WEBHOOKS_CA_FILE?: string;

  /**
   * Browser origins allowed to call /api/mcp (comma-separated, e.g. `https://app.example.com`),
   * besides PUBLIC_URL's own. A request with any other Origin header is refused (403): DNS
   * rebinding protection, as the MCP transport specification asks. No Origin: not a browser.
   */
  @IsOptional()
  @Transform(toList)
  @IsUrl(HTTP_URL, {
    each: true,
    message: 'MCP_ALLOWED_ORIGINS must be comma-separated origins such as https://app.example.com',
  })
  MCP_ALLOWED_ORIGINS?: string[];

  /**
   * The first platform administrator, created by agent-auth on an EMPTY users table (ignored
   * afterwards). ADMIN_TOKEN (32+ characters) becomes that admin's first access token.
   */
  @IsOptional()
  @IsEmail({ require_tld: false }, { message: 'ADMIN_EMAIL must be an email address' })
  ADMIN_EMAIL?: string;

  @IsOptional()
  @IsString()
  @MinLength(12, { message: 'ADMIN_PASSWORD must be at least 12 characters' })
  ADMIN_PASSWORD?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'ADMIN_TOKEN must be at least 32 characters' })
  @MaxLength(256)
  @Matches(/^[\x21-\x7e]+$/, { message: 'ADMIN_TOKEN must be printable ASCII without spaces' })
  ADMIN_TOKEN?: string;

  /** How long a browser session lasts after sign-in, in hours. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(24 * 90)
  SESSION_TTL_HOURS = 24 * 7;

  /** Lifetime of a hosted-zone handoff token (the JWT a client presents at a Leaf), in seconds. */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(3600)
  HANDOFF_TOKEN_TTL_SECONDS = 300;

  /** A new handoff signing key is made when the newest is older than this (days); older keys stay published until their tokens expired. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  HANDOFF_KEY_ROTATION_DAYS = 30;

  /**
   * Identity providers whose ID-JAGs and Security Event Tokens are trusted, as a JSON array of
   * `{issuer, jwksUri | jwks, algorithms?, allowedClientIds?}` (docs/agent-authentication.md).
   * Platform administrators can add more through `/api/admin/trusted-issuers`.
   */
  @IsOptional()
  @IsString()
  AGENT_TRUSTED_ISSUERS?: string;

  /**
   * TEST SETTING, off by default: lets a trusted issuer's JWKS be fetched over plain HTTP from
   * loopback or private addresses (a test identity provider on this machine). Never in production.
   */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean(BOOLEAN)
  AGENT_JWKS_ALLOW_PRIVATE?: boolean;

  /** Lifetime of an agent access token (seconds). */
  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(86_400)
  AGENT_ACCESS_TOKEN_TTL_SECONDS = 3600;

  /** Lifetime of an agent refresh token (days); each refresh rotates it. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(365)
  AGENT_REFRESH_TOKEN_TTL_DAYS = 30;

  /** How long a service-assisted claim token stays valid (seconds). */
  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(86_400)
  AGENT_CLAIM_TTL_SECONDS = 1800;

  /** The user-code window of a claim (seconds): the claim page works this long; /agent/identity/claim renews it. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  AGENT_CLAIM_WINDOW_SECONDS = 600;

  /** The polling interval a claim starts with (seconds); `slow_down` adds 5 (RFC 8628). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(60)
  AGENT_CLAIM_POLL_INTERVAL_SECONDS = 5;

  /** RFC 7591 dynamic client registrations one address may make per hour. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  OAUTH_REGISTRATIONS_PER_HOUR = 20;

  /** Lifetime of an authorization code once the user approved (seconds). */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(600)
  OAUTH_CODE_TTL_SECONDS = 60;

  /**
   * The operator's price table for usage cost estimates (`/api/ai/usage`), a JSON object keyed
   * by model: `{"gpt-4o-mini": {"inputPer1kTokens": 0.00015, "outputPer1kTokens": 0.0006,
   * "perImage": 0.04, "perSearch": 0.005, "per1kEmbeddings": 0.02}}`; models it does not list cost 0.
   */
  @IsOptional()
  @IsString()
  AI_PRICES?: string;

  /** The currency of AI_PRICES, shown with every estimate. */
  @Matches(/^[A-Z]{3}$/)
  AI_PRICES_CURRENCY = 'USD';

  /**
   * Plans (docs/plans.md), JSON: `{"default": "free", "plans": [{"id": "free", "name": "Free",
   * "limits": {"monthlyTokens": 100000, "monthlyImages": 20}, "entitlements": {"webSearch": false,
   * "models": ["gpt-4o-mini"]}}]}`. Unset: one self-hosted plan without limits.
   */
  @IsOptional()
  @IsString()
  PLANS?: string;

  /**
   * How long a process keeps an account's plan limits and entitlements before it asks again: a
   * plan change shows within it. At most the default, which the chat API's count of usage not
   * yet in the entitlements (UncountedUsage) is sized for.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(5_000)
  PLAN_CACHE_MS = 5_000;

  /** Subscription billing (docs/billing.md): `stripe`. Unset: no checkout, portal or webhooks. */
  @IsOptional()
  @IsIn(['stripe'])
  BILLING_PROVIDER?: 'stripe';

  /** Stripe's secret API key (`sk_...` or a restricted `rk_...`); required with BILLING_PROVIDER=stripe. Never logged. */
  @IsOptional()
  @IsString()
  STRIPE_SECRET_KEY?: string;

  /** The signing secret of the Stripe webhook endpoint (`whsec_...`); required with BILLING_PROVIDER=stripe. */
  @IsOptional()
  @IsString()
  STRIPE_WEBHOOK_SECRET?: string;

  /** Stripe's API origin (a local stand-in in tests). */
  @IsUrl(HTTP_URL)
  STRIPE_API_URL = 'https://api.stripe.com';

  /** Where checkout and the customer portal send people back when a request names no URL; default PUBLIC_URL. */
  @IsOptional()
  @IsUrl(HTTP_URL)
  BILLING_RETURN_URL?: string;

  /** A hosted zone whose Leaf has not sent a heartbeat for this long shows `offline` (new placements on it are refused). */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(86_400)
  HOSTED_ZONE_OFFLINE_AFTER_SECONDS = 60;

  /** Fragments one workspace may hold (archived ones included); 409 FRAGMENT_LIMIT_REACHED above. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  MAX_FRAGMENTS_PER_WORKSPACE = 100_000;

  /**
   * Fragment text (content, title, summary) one listing page holds at most; the page ends early
   * past it (at least one fragment), and clients page on by the `count` they got.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(32 * 1024 * 1024)
  LIST_PAGE_MAX_BYTES = 16 * 1024 * 1024;

  /** Requests one credential (token or session) may make per window; 429 above. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_CREDENTIAL = 600;

  /** Requests per window about one workspace, whoever makes them. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_WORKSPACE = 1200;

  /** Requests per window from one address without a credential (sign-in, public routes). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_ADDRESS = 300;

  /**
   * Failed authentications (a credential presented and refused) one address may make per
   * window; above it the address is refused with 429 before any credential is looked up, with
   * a backoff that doubles at each repeat.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  AUTH_FAILURES_PER_ADDRESS = 30;

  /** Failed authentications per window with one credential (a revoked or guessed token), from any address. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  AUTH_FAILURES_PER_CREDENTIAL = 10;

  /**
   * How long a gateway reuses a bearer token's authentication before asking agent-auth again
   * (0: never). Revoking or narrowing a token drops it from every gateway's cache at once (a
   * broadcast over NATS); this bound covers a gateway that missed the broadcast.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(300_000)
  AUTH_CACHE_TTL_MS = 10_000;

  /**
   * How long a data-plane component reuses the workspaces component's answer to "how does
   * this caller stand towards this workspace" (ResolveAccess) before asking again (0: never).
   * Membership, visibility and placement changes drop the answers at once (a broadcast over
   * NATS); this bound covers a process that missed the broadcast.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60_000)
  ACCESS_CACHE_TTL_MS = 5_000;

  /** Length of a rate-limit window, in seconds. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  RATE_LIMIT_WINDOW_SECONDS = 60;

  /** AI provider of enrichment (summaries, tags, embeddings): `builtin` (no network, deterministic) or `openai` (any OpenAI-compatible endpoint). */
  @IsIn(AI_PROVIDERS)
  AI_PROVIDER: (typeof AI_PROVIDERS)[number] = 'builtin';

  /** Base URL of the OpenAI-compatible API, version included (e.g. https://api.openai.com/v1, http://localhost:11434/v1). */
  @IsOptional()
  @IsUrl(HTTP_URL)
  AI_BASE_URL?: string;

  /** Bearer key sent to the OpenAI-compatible API (unset: no Authorization header, e.g. a local Ollama). */
  @IsOptional()
  @IsString()
  AI_API_KEY?: string;

  /** Chat model used for summaries and tags (AI_PROVIDER=openai). */
  @IsString()
  @MinLength(1)
  AI_CHAT_MODEL = 'gpt-4o-mini';

  /** Embedding model (AI_PROVIDER=openai). */
  @IsString()
  @MinLength(1)
  AI_EMBEDDING_MODEL = 'text-embedding-3-small';

  /**
   * Put before each search query embedded (AI_PROVIDER=openai), for models trained with such a
   * marker (`query: ` for e5). Unset: the model family's (docs/enrichment.md), none for others;
   * `none`: no marker.
   */
  @IsOptional()
  @IsString()
  @MaxLength(500)
  AI_EMBEDDING_QUERY_PREFIX?: string;

  /** Put before each fragment or file chunk embedded (`passage: ` for e5); like AI_EMBEDDING_QUERY_PREFIX. */
  @IsOptional()
  @IsString()
  @MaxLength(500)
  AI_EMBEDDING_DOCUMENT_PREFIX?: string;

  /** How long one call to the AI provider may take before it counts as a failed attempt. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  AI_TIMEOUT_MS = 60_000;

  /**
   * Model providers of the chat API (/api/v1), as JSON: `{"providers":[{id, kind: openai|anthropic,
   * baseUrl, apiKey | apiKeyEnv, ...}]}` (docs/chat.md). Unset: no provider, /api/v1/models is empty.
   */
  @IsOptional()
  @IsString()
  CHAT_PROVIDERS?: string;

  /** The same JSON in a file (a mounted secret), used when CHAT_PROVIDERS is unset. */
  @IsOptional()
  @IsString()
  CHAT_PROVIDERS_FILE?: string;

  /** How often the model list is discovered again from the providers. */
  @Transform(toInt)
  @IsInt()
  @Min(1_000)
  @Max(86_400_000)
  CHAT_MODELS_REFRESH_MS = 300_000;

  /** How long the URL of a generated image (response_format=url) stays valid. */
  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(86_400)
  CHAT_IMAGE_URL_TTL_SECONDS = 3_600;

  /**
   * TEST SETTING, off by default: lets an embed configuration's `trustedIssuer.jwksUrl` be plain
   * HTTP on `localhost`, loopback, private or unique-local addresses (a test identity provider on
   * this machine). Link-local (cloud metadata) stays refused. Never in production.
   */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean(BOOLEAN)
  EMBED_JWKS_ALLOW_PRIVATE?: boolean;

  /** Web search provider of POST /api/v1/web/search: `searxng` (self-hosted) or `exa` (hosted API). Unset: web search answers 502. */
  @IsOptional()
  @IsIn(['searxng', 'exa'])
  WEB_SEARCH_PROVIDER?: 'searxng' | 'exa';

  /** Base URL of the web search provider (SearXNG instance; Exa defaults to https://api.exa.ai). */
  @IsOptional()
  @IsUrl(HTTP_URL)
  WEB_SEARCH_URL?: string;

  /** API key of the hosted web search provider. */
  @IsOptional()
  @IsString()
  WEB_SEARCH_API_KEY?: string;

  /** How long one web search may take before it answers 502. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEB_SEARCH_TIMEOUT_MS = 15_000;

  /** Attempts of one enrichment step (summary, tags, embedding, graph) before it is recorded as failed. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(20)
  ENRICHMENT_MAX_ATTEMPTS = 4;

  /** First retry delay of a failing enrichment step; doubles per attempt, with jitter. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  ENRICHMENT_RETRY_BASE_MS = 1_000;

  /** How often the outbox relay looks for unpublished events (it also runs right after a publish batch, and when its own process commits outbox rows). */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(60_000)
  OUTBOX_POLL_INTERVAL_MS = 250;

  /** Pretty, human-oriented log lines instead of JSON (never in production). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean(BOOLEAN)
  LOG_PRETTY?: boolean;

  get publicUrl(): string {
    return (this.PUBLIC_URL ?? `http://localhost:${this.PORT}`).replace(/\/$/, '');
  }
}

/** Names of every variable AppConfig knows, read from its validation metadata (used by the deploy-file check). */
export const KNOWN_ENV_KEYS: readonly string[] = [
  ...new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(AppConfig, '', true, false)
      .map((m) => m.propertyName),
  ),
];

/** The settings of S3 storage that mean nothing without S3_BUCKET. */
const S3_SETTINGS = [
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
] as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment. Throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Record<string, string> = {}): AppConfig {
  const raw: Record<string, string> = {};
  for (const key of KNOWN_ENV_KEYS) {
    const value = overrides[key] ?? env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const config = plainToInstance(AppConfig, raw);
  const problems = validateSync(config, { forbidUnknownValues: true }).flatMap((e) =>
    Object.values(e.constraints ?? {}).map((msg) => `${e.property}: ${msg}`),
  );
  if (config.RUN_MODE === 'distributed') {
    if (!config.DATABASE_URL) problems.push('DATABASE_URL: required when RUN_MODE=distributed');
    if (!config.NATS_URL) problems.push('NATS_URL: required when RUN_MODE=distributed');
  }
  if (config.BILLING_PROVIDER === 'stripe') {
    for (const key of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const)
      if (!config[key]) problems.push(`${key}: required when BILLING_PROVIDER=stripe`);
  }
  // Without a bucket files go to DATA_DIR: an S3 setting alone means the operator believes they go to S3.
  if (!config.S3_BUCKET) {
    for (const key of S3_SETTINGS)
      if (raw[key] !== undefined)
        problems.push(`S3_BUCKET: required when ${key} is set (without a bucket files are stored under DATA_DIR)`);
  }
  // Node refuses a headers timeout above the request's; an idle timeout above it would never fire.
  for (const key of ['HEADERS_TIMEOUT_MS', 'BODY_IDLE_TIMEOUT_MS'] as const)
    if (config[key] > config.REQUEST_RECEIVE_TIMEOUT_MS)
      problems.push(`${key}: must not exceed REQUEST_RECEIVE_TIMEOUT_MS (${config.REQUEST_RECEIVE_TIMEOUT_MS})`);
  if (config.WEB_SEARCH_PROVIDER === 'searxng' && !config.WEB_SEARCH_URL)
    problems.push('WEB_SEARCH_URL: required when WEB_SEARCH_PROVIDER=searxng (the URL of the SearXNG instance)');
  if (config.WEB_SEARCH_PROVIDER === 'exa' && !config.WEB_SEARCH_API_KEY)
    problems.push('WEB_SEARCH_API_KEY: required when WEB_SEARCH_PROVIDER=exa (the Exa API key)');
  // The PLANS table stops a start here, with the rest, not once the components are built (by
  // then an embedded database is made and started).
  try {
    parsePlans(config.PLANS);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
