import { Inject, Injectable } from '@nestjs/common';
import { ControlPrisma } from '@kw/platform-persistence';
import { CHAT_DB, type ChatDb } from './chat-database.js';

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

/** Embed configurations and their keys, always scoped to the configuration's creator. */
@Injectable()
export class EmbedConfigsRepository {
  constructor(@Inject(CHAT_DB) private readonly db: ChatDb) {}

  async page(
    createdBy: string,
    filter: { workspaceId?: string; status: string },
    limit: number,
    offset: number,
  ): Promise<{ rows: EmbedConfigRow[]; total: number }> {
    const where = {
      createdBy,
      status: filter.status,
      ...(filter.workspaceId ? { workspaceId: filter.workspaceId } : {}),
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

  /** The creator's configuration, archived ones included (they can be read, not used). */
  async findOwned(createdBy: string, id: string): Promise<EmbedConfigRow | null> {
    const stored = await this.db.embedConfig.findFirst({ where: { id, createdBy } });
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

  async update(createdBy: string, id: string, changes: EmbedConfigChanges): Promise<EmbedConfigRow | null> {
    const { features, defaultContext, trustedIssuer, ...plain } = changes;
    const { count } = await this.db.embedConfig.updateMany({
      where: { id, createdBy, status: 'active' },
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
    return count === 0 ? null : this.findOwned(createdBy, id);
  }

  async archive(createdBy: string, id: string): Promise<boolean> {
    const { count } = await this.db.embedConfig.updateMany({
      where: { id, createdBy, status: 'active' },
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

  /** A key by its token's SHA-256, with its configuration: what the embed chat admits a request by. */
  async findKeyByHash(tokenHash: string): Promise<{ key: EmbedKeyRow; config: EmbedConfigRow } | null> {
    const found = await this.db.embedKey.findUnique({
      where: { tokenHash },
      select: { ...KEY_COLUMNS, config: true },
    });
    if (!found) return null;
    const { config, ...key } = found;
    return { key, config: configRow(config) };
  }

  countKeys(configId: string): Promise<number> {
    return this.db.embedKey.count({ where: { configId } });
  }

  findKey(configId: string, id: string): Promise<EmbedKeyRow | null> {
    return this.db.embedKey.findFirst({ where: { id, configId }, select: KEY_COLUMNS });
  }

  insertKey(key: NewEmbedKey): Promise<EmbedKeyRow> {
    return this.db.embedKey.create({ data: key, select: KEY_COLUMNS });
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
}
