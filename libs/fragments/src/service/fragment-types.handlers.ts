import { Injectable } from '@nestjs/common';
import { FragmentsService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { ensureDefaultTypes } from './default-types.js';
import { fragmentTypeNotFound, invalidInput, typeInUse, typeKeyExists } from './fragment-errors.js';
import { fragmentTypeView } from './fragment-view.js';
import { isUuid } from '@kw/platform-ids';
import { isUniqueViolation } from '../persistence/unique-violation.js';
import { FragmentTypesRepository } from '../persistence/fragment-types.repository.js';
import type { FragmentTypeRow } from '../persistence/rows.js';
import { NO_MEMBER, WorkspaceGate } from './workspace-gate.js';

const TYPE_KEY = /^[a-z0-9][a-z0-9_-]*$/;

/** Fragment types of a workspace: read like fragments, written with fragments:write / fragments:delete. */
@Injectable()
export class FragmentTypesHandlers {
  constructor(
    private readonly types: FragmentTypesRepository,
    private readonly gate: WorkspaceGate,
  ) {}

  @Handles(FragmentsService.method.listFragmentTypes)
  async list(input: RequestOf<typeof FragmentsService, 'listFragmentTypes'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:read');
    await ensureDefaultTypes(this.types, workspaceId);
    const rows = await this.types.listInWorkspace(workspaceId);
    return { fragmentTypes: rows.map(fragmentTypeView) };
  }

  @Handles(FragmentsService.method.createFragmentType)
  async create(input: RequestOf<typeof FragmentsService, 'createFragmentType'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:write');
    if (!TYPE_KEY.test(input.key)) throw invalidInput('key', 'must be lower-case letters, digits, - or _');
    await ensureDefaultTypes(this.types, workspaceId);
    try {
      const row = await this.types.create(workspaceId, {
        key: input.key,
        name: input.name,
        description: input.description,
      });
      return { fragmentType: fragmentTypeView(row) };
    } catch (error) {
      if (isUniqueViolation(error)) throw typeKeyExists();
      throw error;
    }
  }

  @Handles(FragmentsService.method.getFragmentType)
  async get(input: RequestOf<typeof FragmentsService, 'getFragmentType'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:read');
    return { fragmentType: fragmentTypeView(await this.find(workspaceId, input.fragmentTypeId)) };
  }

  @Handles(FragmentsService.method.updateFragmentType)
  async update(input: RequestOf<typeof FragmentsService, 'updateFragmentType'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:write', {
      resourceOwnerId: NO_MEMBER,
    });
    const type = await this.find(workspaceId, input.fragmentTypeId);
    const row = await this.types.update(type.id, { name: input.name, description: input.description });
    return { fragmentType: fragmentTypeView(row) };
  }

  @Handles(FragmentsService.method.deleteFragmentType)
  async delete(input: RequestOf<typeof FragmentsService, 'deleteFragmentType'>, context: RequestContext) {
    const { workspaceId } = await this.gate.authorize(context, input.workspaceId, 'fragments:delete', {
      resourceOwnerId: NO_MEMBER,
    });
    const type = await this.find(workspaceId, input.fragmentTypeId);
    // Archived fragments count too: they still reference the type (restrict FK).
    const fragmentCount = await this.types.deleteUnlessUsed(type.id);
    if (fragmentCount === 'gone') throw fragmentTypeNotFound(); // a concurrent delete came first
    if (fragmentCount > 0) throw typeInUse(fragmentCount);
    return {};
  }

  private async find(workspaceId: string, id: string): Promise<FragmentTypeRow> {
    const row = isUuid(id) ? await this.types.findInWorkspace(workspaceId, id) : null;
    if (!row) throw fragmentTypeNotFound();
    return row;
  }
}
