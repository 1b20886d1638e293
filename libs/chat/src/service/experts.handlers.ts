import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ExpertsService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { notFound } from '@kw/platform-errors';
import { isUuid } from '@kw/platform-ids';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { CHAT_PAGE_DEFAULT, CHAT_PAGE_MAX } from '../chat-limits.js';
import { ExpertsRepository, type ExpertChanges } from '../persistence/experts.repository.js';
import { requireAccount } from './chat-caller.js';
import { validExpertName, validKeywords, validTools } from './expert-input.js';
import { expertView } from './expert-view.js';

type Req<M extends keyof typeof ExpertsService.method> = RequestOf<typeof ExpertsService, M>;

const expertNotFound = () => notFound('Expert');

/**
 * Custom experts. An expert belongs to its creator (`applications:manage`, like embed
 * configurations) and to a workspace its creator can read: its tools later run as the user who
 * talks to it, so the workspace is checked again at every use. A credential restricted to other
 * workspaces finds nothing of it: lists leave it out, its id answers 404 like an unknown one.
 * Model ids are checked at the HTTP edge, which holds the model catalog.
 */
@Injectable()
export class ExpertsHandlers {
  constructor(
    private readonly experts: ExpertsRepository,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(ExpertsService.method.listExperts)
  async list(input: Req<'listExperts'>, context: RequestContext) {
    const { userId, workspaceIds } = requireAccount(context, 'applications:manage');
    if (input.workspaceId && !isUuid(input.workspaceId)) return { experts: [], totalCount: 0 };
    const limit = Math.min(Math.max(input.limit || CHAT_PAGE_DEFAULT, 1), CHAT_PAGE_MAX);
    const offset = Math.max(input.offset, 0);
    const { rows, total } = await this.experts.page(
      userId,
      { workspaceId: input.workspaceId || undefined, reach: workspaceIds },
      limit,
      offset,
    );
    return { experts: rows.map(expertView), totalCount: total };
  }

  @Handles(ExpertsService.method.createExpert)
  async create(input: Req<'createExpert'>, context: RequestContext) {
    const { userId } = requireAccount(context, 'applications:manage');
    const name = validExpertName(input.name);
    const enabledTools = validTools(input.enabledTools);
    await this.gate.authorize(context, input.workspaceId, 'chat:use');
    const row = await this.experts.insert({
      id: randomUUID(),
      createdBy: userId,
      workspaceId: input.workspaceId,
      name,
      systemPrompt: input.systemPrompt,
      enabledTools,
      routingKeywords: validKeywords(input.routingKeywords),
      modelPreference: input.modelPreference,
    });
    return { expert: expertView(row) };
  }

  @Handles(ExpertsService.method.getExpert)
  async get(input: Req<'getExpert'>, context: RequestContext) {
    const { userId, workspaceIds } = requireAccount(context, 'applications:manage');
    const row = isUuid(input.id) ? await this.experts.findOwned(userId, input.id, workspaceIds) : null;
    if (!row) throw expertNotFound();
    return { expert: expertView(row) };
  }

  @Handles(ExpertsService.method.updateExpert)
  async update(input: Req<'updateExpert'>, context: RequestContext) {
    const { userId, workspaceIds } = requireAccount(context, 'applications:manage');
    const current = isUuid(input.id) ? await this.experts.findOwned(userId, input.id, workspaceIds) : null;
    if (!current) throw expertNotFound();
    const changes: ExpertChanges = {};
    if (input.name !== undefined) changes.name = validExpertName(input.name);
    if (input.systemPrompt !== undefined) changes.systemPrompt = input.systemPrompt;
    if (input.setEnabledTools) changes.enabledTools = validTools(input.enabledTools);
    if (input.setRoutingKeywords) changes.routingKeywords = validKeywords(input.routingKeywords);
    if (input.modelPreference !== undefined) changes.modelPreference = input.modelPreference;
    const row = await this.experts.update(userId, input.id, workspaceIds, changes);
    if (!row) throw expertNotFound();
    return { expert: expertView(row) };
  }

  @Handles(ExpertsService.method.archiveExpert)
  async archive(input: Req<'archiveExpert'>, context: RequestContext) {
    const { userId, workspaceIds } = requireAccount(context, 'applications:manage');
    if (!isUuid(input.id) || !(await this.experts.archive(userId, input.id, workspaceIds))) throw expertNotFound();
    return {};
  }
}
