import { Inject, Injectable } from '@nestjs/common';
import { ControlPrisma, type Database, createBelowCap } from '@kw/platform-persistence';
import { DATABASE } from '@kw/platform-runtime';
import type { SealedColumn } from '@kw/platform-secret-box';
import { CHAT_DB, type ChatDb } from './chat-database.js';
import { withinReach, type Reach } from './reach.js';

export interface EmbedFeaturesRow {
  feedbackMode: string;
  structuredQuestions: boolean;
  webSearch: boolean;
  exposeWorkspaceFilesToParent: boolean;
  /** auto, light or dark (rows written before themes existed have none: auto). */
  theme?: string;
}

export interface TrustedIssuerRow {
  issuer: string;
  audience: string;
  jwksUrl: string;
  jwksJson: string;
}

export interface ContextItemRow {
  contextType: string;
  contextId: string;
}

export interface EmbedConfigRow {
  id: string;
  createdBy: string;
  workspaceId: string;
  name: string;
  status: string;
  model: string;
  modelLocked: boolean;
  features: EmbedFeaturesRow;
  mainExpertId: string | null;
  stateless: boolean;
  systemPrompt: string;
  defaultContext: ContextItemRow[];
  trustedIssuer: TrustedIssuerRow | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewEmbedConfig = Omit<EmbedConfigRow, 'status' | 'createdAt' | 'updatedAt'>;
export type EmbedConfigChanges = Partial<
  Pick<
    EmbedConfigRow,
    | 'name'
    | 'model'
    | 'modelLocked'
    | 'features'
    | 'mainExpertId'
    | 'stateless'
    | 'systemPrompt'
    | 'defaultContext'
    | 'trustedIssuer'
  >
>;

export interface EmbedKeyRow {
  id: string;
  configId: string;
  label: string;
  allowedOrigins: string[];
  public: boolean;
  expiresAt: Date | null;
  tokenPrefix: string;
  scopedTokenSealed: string | null;
  revokedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewEmbedKey = Omit<EmbedKeyRow, 'revokedAt' | 'createdAt' | 'updatedAt'> & { tokenHash: string };
export type EmbedKeyChanges = Partial<Pick<EmbedKeyRow, 'label' | 'allowedOrigins' | 'public' | 'expiresAt'>>;

type Stored = Awaited<ReturnType<ChatDb['embedConfig']['findFirst']>>;

/** JSON columns are the service's own shapes, written by this repository only. */
function configRow(stored: NonNullable<Stored>): EmbedConfigRow {
  return {
    ...stored,
    features: stored.features as unknown as EmbedFeaturesRow,
    defaultContext: stored.defaultContext as unknown as ContextItemRow[],
    trustedIssuer: (stored.trustedIssuer ?? null) as unknown as TrustedIssuerRow | null,
  };
}

const json = (value: unknown) => value as ControlPrisma.InputJsonValue;

/** A key's columns and its configuration's, by the key's token hash or id (jsonb columns arrive parsed; timestamps as Dates). */
const keyWithConfigBy = (column: 'token_hash' | 'id') => `
  SELECT k.id::text AS id, k.config_id::text AS "configId", k.label, k.allowed_origins AS "allowedOrigins",
         k.public, k.expires_at AS "expiresAt", k.token_prefix AS "tokenPrefix",
         k.scoped_token_sealed AS "scopedTokenSealed", k.revoked_at AS "revokedAt", k.created_at AS "createdAt",
         k.updated_at AS "updatedAt", c.created_by::text AS "cCreatedBy", c.workspace_id::text AS "cWorkspaceId",
         c.name AS "cName", c.status AS "cStatus", c.model AS "cModel", c.model_locked AS "cModelLocked",
         c.features AS "cFeatures", c.main_expert_id::text AS "cMainExpertId", c.stateless AS "cStateless",
         c.system_prompt AS "cSystemPrompt", c.default_context AS "cDefaultContext",
         c.trusted_issuer AS "cTrustedIssuer", c.created_at AS "cCreatedAt", c.updated_at AS "cUpdatedAt",
         c.archived_at AS "cArchivedAt"
    FROM control.embed_keys k JOIN control.embed_configs c ON c.id = k.config_id
   WHERE k.${column} = $1`;

interface KeyWithConfigRow extends EmbedKeyRow {
  cCreatedBy: string;
  cWorkspaceId: string;
  cName: string;
  cStatus: string;
  cModel: string;
  cModelLocked: boolean;
  cFeatures: EmbedFeaturesRow;
  cMainExpertId: string | null;
  cStateless: boolean;
  cSystemPrompt: string;
  cDefaultContext: ContextItemRow[];
  cTrustedIssuer: TrustedIssuerRow | null;
  cCreatedAt: Date;
  cUpdatedAt: Date;
  cArchivedAt: Date | null;
}

/** A row of keyWithConfigBy as the key and its configuration. */
function keyWithConfig(row: KeyWithConfigRow): { key: EmbedKeyRow; config: EmbedConfigRow } {
  const key: EmbedKeyRow = {
    id: row.id,
    configId: row.configId,
    label: row.label,
    allowedOrigins: row.allowedOrigins,
    public: row.public,
    expiresAt: row.expiresAt,
    tokenPrefix: row.tokenPrefix,
    scopedTokenSealed: row.scopedTokenSealed,
    revokedAt: row.revokedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  const config: EmbedConfigRow & { archivedAt: Date | null } = {
    id: row.configId,
    createdBy: row.cCreatedBy,
    workspaceId: row.cWorkspaceId,
    name: row.cName,
    status: row.cStatus,
    model: row.cModel,
    modelLocked: row.cModelLocked,
    features: row.cFeatures,
    mainExpertId: row.cMainExpertId,
    stateless: row.cStateless,
    systemPrompt: row.cSystemPrompt,
    defaultContext: row.cDefaultContext,
    trustedIssuer: row.cTrustedIssuer ?? null,
    createdAt: row.cCreatedAt,
    updatedAt: row.cUpdatedAt,
    archivedAt: row.cArchivedAt,
  };
  return { key, config };
}

const KEY_COLUMNS = {
  id: true,
  configId: true,
  label: true,
  allowedOrigins: true,
  public: true,
  expiresAt: true,
  tokenPrefix: true,
  scopedTokenSealed: true,
  revokedAt: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** Embed configurations and their keys. Writes are scoped to the configuration's creator, except archiving (its workspace's owners may). */
@Injectable()
export class EmbedConfigsRepository {
  constructor(
    @Inject(CHAT_DB) private readonly db: ChatDb,
    @Inject(DATABASE) private readonly database: Pick<Database, 'pool'>,
  ) {}

  /**
   * A page of one creator's configurations, or of every creator's (`createdBy` undefined: a
   * workspace's owner), over the workspaces the caller's credential reaches.
   */
  async page(
    createdBy: string | undefined,
    filter: { workspaceId?: string; status: string; reach: Reach },
    limit: number,
    offset: number,
  ): Promise<{ rows: EmbedConfigRow[]; total: number }> {
    const where = {
      ...(createdBy ? { createdBy } : {}),
      status: filter.status,
      AND: [withinReach(filter.reach), filter.workspaceId ? { workspaceId: filter.workspaceId } : {}],
    };
    const [rows, total] = await Promise.all([
      this.db.embedConfig.findMany({
        where,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: limit,
        skip: offset,
      }),
      this.db.embedConfig.count({ where }),
    ]);
    return { rows: rows.map(configRow), total };
  }

  /**
   * The creator's configuration over a workspace their credential reaches, archived ones included
   * (they can be read, not used).
   */
  async findOwned(createdBy: string, id: string, reach: Reach): Promise<EmbedConfigRow | null> {
    const stored = await this.db.embedConfig.findFirst({ where: { id, createdBy, ...withinReach(reach) } });
    return stored ? configRow(stored) : null;
  }

  /** A configuration by id, whoever created it, archived ones included (its workspace's owners see it). */
  async findById(id: string): Promise<EmbedConfigRow | null> {
    const stored = await this.db.embedConfig.findFirst({ where: { id } });
    return stored ? configRow(stored) : null;
  }

  /** An active configuration by id, whoever created it (the embed chat, after admitting a key). */
  async findActive(id: string): Promise<EmbedConfigRow | null> {
    const stored = await this.db.embedConfig.findFirst({ where: { id, status: 'active' } });
    return stored ? configRow(stored) : null;
  }

  async insert(config: NewEmbedConfig): Promise<EmbedConfigRow> {
    const stored = await this.db.embedConfig.create({
      data: {
        ...config,
        features: json(config.features),
        defaultContext: json(config.defaultContext),
        trustedIssuer: config.trustedIssuer ? json(config.trustedIssuer) : undefined,
      },
    });
    return configRow(stored);
  }

  async update(
    createdBy: string,
    id: string,
    reach: Reach,
    changes: EmbedConfigChanges,
  ): Promise<EmbedConfigRow | null> {
    const { features, defaultContext, trustedIssuer, ...plain } = changes;
    const { count } = await this.db.embedConfig.updateMany({
      where: { id, createdBy, status: 'active', ...withinReach(reach) },
      data: {
        ...plain,
        ...(features ? { features: json(features) } : {}),
        ...(defaultContext ? { defaultContext: json(defaultContext) } : {}),
        ...(trustedIssuer !== undefined
          ? { trustedIssuer: trustedIssuer === null ? ControlPrisma.DbNull : json(trustedIssuer) }
          : {}),
        updatedAt: new Date(),
      },
    });
    return count === 0 ? null : this.findOwned(createdBy, id, reach);
  }

  /** Archives an active configuration (its creator's or its workspace owner's decision, checked before). */
  async archive(id: string): Promise<boolean> {
    const { count } = await this.db.embedConfig.updateMany({
      where: { id, status: 'active' },
      data: { status: 'archived', archivedAt: new Date(), updatedAt: new Date() },
    });
    return count > 0;
  }

  keysOf(configId: string): Promise<EmbedKeyRow[]> {
    return this.db.embedKey.findMany({
      where: { configId },
      select: KEY_COLUMNS,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }

  /**
   * A key by its token's SHA-256, with its configuration: what the embed chat admits a request
   * by. One statement (decision 0008): every embed request asks it, and Prisma's select with the
   * relation cost two queries and their plans.
   */
  async findKeyByHash(tokenHash: string): Promise<{ key: EmbedKeyRow; config: EmbedConfigRow } | null> {
    const { rows } = await this.database.pool.query<KeyWithConfigRow>(keyWithConfigBy('token_hash'), [tokenHash]);
    return rows[0] ? keyWithConfig(rows[0]) : null;
  }

  /** A key by its id, with its configuration: an admitted turn confirms it before each tool call. */
  async findKeyById(id: string): Promise<{ key: EmbedKeyRow; config: EmbedConfigRow } | null> {
    const { rows } = await this.database.pool.query<KeyWithConfigRow>(keyWithConfigBy('id'), [id]);
    return rows[0] ? keyWithConfig(rows[0]) : null;
  }

  findKey(configId: string, id: string): Promise<EmbedKeyRow | null> {
    return this.db.embedKey.findFirst({ where: { id, configId }, select: KEY_COLUMNS });
  }

  /**
   * Creates the key unless its configuration already has `max` unrevoked keys (null then,
   * nothing written). Revoked keys stay listed but cannot be deleted, so they do not count:
   * otherwise a configuration that ever had `max` keys could never get another. Creates are
   * serialised per configuration (an advisory lock in the transaction), so the cap holds under
   * concurrency; a revoke racing a create only lowers the count.
   */
  insertKeyWithin(key: NewEmbedKey, max: number): Promise<EmbedKeyRow | null> {
    return this.db.$transaction((tx) =>
      createBelowCap(
        tx,
        {
          lockKey: `embed-keys-of:${key.configId}`,
          max,
          count: () => tx.embedKey.count({ where: { configId: key.configId, revokedAt: null } }),
        },
        () => tx.embedKey.create({ data: key, select: KEY_COLUMNS }),
      ),
    );
  }

  async updateKey(configId: string, id: string, changes: EmbedKeyChanges): Promise<EmbedKeyRow | null> {
    const { count } = await this.db.embedKey.updateMany({
      where: { id, configId, revokedAt: null },
      data: { ...changes, updatedAt: new Date() },
    });
    return count === 0 ? null : this.findKey(configId, id);
  }

  async revokeKey(configId: string, id: string): Promise<boolean> {
    const { count } = await this.db.embedKey.updateMany({
      where: { id, configId, revokedAt: null },
      data: { revokedAt: new Date(), updatedAt: new Date() },
    });
    return count > 0;
  }

  /** The keys' scoped tokens, sealed, as a column to re-seal (a master key rotation), revoked keys too. */
  get sealedScopedTokens(): SealedColumn {
    const db = this.db;
    return {
      async notUnder(prefix, afterId, limit) {
        const rows = await db.embedKey.findMany({
          where: {
            scopedTokenSealed: { not: null },
            NOT: { scopedTokenSealed: { startsWith: prefix } },
            ...(afterId ? { id: { gt: afterId } } : {}),
          },
          select: { id: true, scopedTokenSealed: true },
          orderBy: { id: 'asc' },
          take: limit,
        });
        return rows.map((r) => ({ id: r.id, sealed: r.scopedTokenSealed! }));
      },
      async replace(id, from, to) {
        const { count } = await db.embedKey.updateMany({
          where: { id, scopedTokenSealed: from },
          data: { scopedTokenSealed: to },
        });
        return count > 0;
      },
    };
  }
}
