import { Inject, Injectable, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { MessageShape } from '@bufbuild/protobuf';
import { WorkspaceAccessChangedSchema, WorkspacesService, type AuthContext } from '@kw/contracts';
import { decide, denialError, type Action, type Visibility } from '@kw/platform-access-policy';
import type { AppConfig } from '@kw/platform-config';
import type { RequestContext } from '@kw/platform-context';
import { AppError, hostedZoneRequired, workspaceMoving } from '@kw/platform-errors';
import { APP_CONFIG } from '@kw/platform-runtime';
import {
  InvalidatedCache,
  onBroadcast,
  ServiceClient,
  TRANSPORT,
  type Subscription,
  type Transport,
} from '@kw/platform-transport';
import { isUuid } from '@kw/platform-ids';

/** A workspace the caller may act on (never the client's word: ResolveAccess found it). */
export interface Gate {
  workspaceId: string;
  userId: string;
  /** The caller's relation (a member role, subscriber or none). */
  relation: string;
  /** The account whose plan sets the workspace's limits (its creator); empty in a Leaf. */
  planHolderId: string;
  /** The workspace is moving here and this is its move's import (docs/portable-workspaces.md#moving). */
  moveImport: boolean;
  /** Its settings enrichment.summaries and enrichment.tags (both on where none are kept: a Leaf). */
  enrichment: { summaries: boolean; tags: boolean };
}

export interface GateOptions {
  /** The creator of the content acted on (updates and deletes); left out when creating. */
  resourceOwnerId?: string;
  /** Answer this instead of the workspace 404 (a fragment id must not reveal its workspace). */
  hiddenAs?: () => AppError;
  /** Served while the workspace moves, although not a read (an export: what the move copies). */
  duringMove?: boolean;
  /** The route of a move's import: admitted on the plane the workspace is moving to. */
  moveImport?: boolean;
}

type Access = MessageShape<typeof WorkspacesService.method.resolveAccess.output>;

/** A workspace the caller may see whose data lives in a hosted zone's Leaf, never on this plane. */
export interface InHostedZone {
  workspaceId: string;
  name: string;
  hostedZoneId: string;
  endpointUrl: string;
}

/** The workspaces a search across all of them reads, and those it names instead (docs/search.md). */
export interface Readable {
  workspaceIds: string[];
  inHostedZones: InHostedZone[];
}

/** Workspaces checked at the same time by readableWorkspaces. */
const CHECKS_AT_ONCE = 8;

/** Actions that change nothing of the workspace's data (chat reads it to answer). */
const readOnly = (action: Action): boolean => action.endsWith(':read') || action === 'chat:use';

/** The answer depends on the workspace and on everything the credential is: who, which token, its scopes and reach. */
function accessKey(workspaceId: string, auth: AuthContext): string {
  const reach = auth.allWorkspaces ? '*' : auth.workspaceIds.join(' ');
  return `${workspaceId}|${auth.userId}|${auth.credentialKind}:${auth.credentialId}|${auth.scopes.join(' ')}|${reach}|${auth.workspaceRole}`;
}

/**
 * How data-plane components authorize: they do not own membership, so they ask the workspaces
 * component how the caller stands towards the workspace (WorkspacesService.ResolveAccess) and
 * let the access policy decide. Hidden workspaces answer the same 404 as missing ones; a
 * workspace whose data lives in a hosted zone answers HOSTED_ZONE_REQUIRED. Never call inside
 * a database transaction: in embedded mode the workspaces component needs the same single
 * connection.
 *
 * Answers are reused for ACCESS_CACHE_TTL_MS (a round trip and a query saved on nearly every
 * data-plane request), per workspace and credential. Whoever answers ResolveAccess broadcasts
 * WorkspaceAccessChanged when an answer may change, and the cached answers of those
 * workspaces go at once; the TTL only bounds a process that missed a broadcast.
 */
@Injectable()
export class WorkspaceGate implements OnModuleInit, OnModuleDestroy {
  private readonly cache: InvalidatedCache<Access>;
  private subscription?: Subscription;

  constructor(
    private readonly client: ServiceClient,
    @Optional() @Inject(TRANSPORT) private readonly transport?: Transport,
    @Optional() @Inject(APP_CONFIG) config?: Pick<AppConfig, 'ACCESS_CACHE_TTL_MS'>,
  ) {
    // No transport to hear the broadcasts on: nothing may be cached.
    this.cache = new InvalidatedCache(transport ? (config?.ACCESS_CACHE_TTL_MS ?? 0) : 0);
  }

  onModuleInit(): void {
    if (!this.transport || !this.cache.enabled) return;
    this.subscription = onBroadcast(
      this.transport,
      WorkspaceAccessChangedSchema,
      (changed) => {
        if (changed.all) this.cache.clear();
        else this.cache.invalidate(changed.workspaceIds);
      },
      // An access change broadcast while NATS was unreachable never arrives.
      () => this.cache.clear(),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
    this.cache.clear();
  }

  async authorize(
    context: RequestContext,
    workspaceId: string,
    action: Action,
    options: GateOptions = {},
  ): Promise<Gate> {
    const { access, decision } = await this.decision(context, workspaceId, action, options.resourceOwnerId);
    if (!decision.allowed)
      throw decision.status === 404 && options.hiddenAs ? options.hiddenAs() : denialError(decision);
    const gate = {
      workspaceId,
      userId: context.auth!.userId,
      relation: access!.relation,
      planHolderId: access!.planHolderId,
      moveImport: false,
      enrichment: { summaries: access!.enrichment?.summaries ?? true, tags: access!.enrichment?.tags ?? true },
    };
    // A move into this plane: only its import writes here until the placement switches.
    if (access!.moveImport && (options.moveImport || context.moveImportOf === workspaceId))
      return { ...gate, moveImport: true };
    // A Leaf-backed workspace: its data lives in the zone's Leaf, never here (docs/hosted-zones.md).
    if (access!.hostedZoneId) throw hostedZoneRequired(access!.hostedZoneId, access!.endpointUrl);
    // Moving out of this plane: what is here is being copied, so it is read-only.
    if (access!.status === 'moving' && !readOnly(action) && !options.duringMove) throw workspaceMoving();
    return gate;
  }

  /**
   * The caller's relation to the workspace (a member role, subscriber or none) when the access
   * policy allows `action` there, else undefined. The policy's decision alone, wherever the
   * workspace's data lives (no hosted-zone or move answer): for checking that someone who lent
   * their access (an embed configuration's creator) still has it, not for serving a request.
   */
  async relationAllowing(context: RequestContext, workspaceId: string, action: Action): Promise<string | undefined> {
    const { access, decision } = await this.decision(context, workspaceId, action);
    return decision.allowed ? access!.relation : undefined;
  }

  private async decision(context: RequestContext, workspaceId: string, action: Action, resourceOwnerId?: string) {
    const auth = context.auth;
    const account = auth?.userId ? { active: true } : undefined;
    const access = auth?.userId && isUuid(workspaceId) ? await this.resolve(auth, workspaceId) : undefined;
    const workspace = access?.found
      ? { id: workspaceId, visibility: access.visibility as Visibility, archived: access.archived }
      : undefined;
    const decision = decide({
      auth,
      account,
      workspace,
      relation: (access?.found ? access.relation : 'none') as never,
      action,
      resourceOwnerId,
    });
    return { access, decision };
  }

  /**
   * The caller's workspaces on this plane where `action` is allowed, for a search across all of
   * them: the workspaces component lists them, each is checked as `authorize` would (so a
   * token's reach and scopes still count); archived ones are left out, and those in a hosted
   * zone are named apart (their data is in a Leaf). A refusal (4xx) only leaves a workspace
   * out; anything else fails the whole answer.
   */
  async readableWorkspaces(context: RequestContext, action: Action): Promise<Readable> {
    const { workspaces } = await this.client.call(WorkspacesService.method.listAccessibleWorkspaces, {});
    const readable: Readable = { workspaceIds: [], inHostedZones: [] };
    const here: string[] = [];
    for (const workspace of workspaces) {
      if (workspace.archivedAt) continue;
      if (workspace.hostedZoneId)
        readable.inHostedZones.push({
          workspaceId: workspace.id,
          name: workspace.name,
          hostedZoneId: workspace.hostedZoneId,
          endpointUrl: workspace.endpointUrl,
        });
      else here.push(workspace.id);
    }
    // A few checks at a time: each may be a round trip to the workspaces component.
    for (let i = 0; i < here.length; i += CHECKS_AT_ONCE) {
      const batch = here.slice(i, i + CHECKS_AT_ONCE);
      const allowed = await Promise.all(batch.map((id) => this.allows(context, id, action)));
      readable.workspaceIds.push(...batch.filter((_, j) => allowed[j]));
    }
    return readable;
  }

  /** True when `authorize` admits the caller; a refusal (4xx) is false, anything else throws. */
  private allows(context: RequestContext, workspaceId: string, action: Action): Promise<boolean> {
    return this.authorize(context, workspaceId, action).then(
      () => true,
      (err: unknown) => {
        if (AppError.isAppError(err) && err.status < 500) return false;
        throw err;
      },
    );
  }

  private async resolve(auth: AuthContext, workspaceId: string): Promise<Access> {
    const key = accessKey(workspaceId, auth);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const startedAt = this.cache.begin();
    const access = await this.client.call(WorkspacesService.method.resolveAccess, { workspaceId });
    this.cache.store(key, access, [workspaceId], startedAt);
    return access;
  }
}
