import { Injectable } from '@nestjs/common';
import { FilesService } from '@kw/contracts';
import type { RequestContext } from '@kw/platform-context';
import { notFound } from '@kw/platform-errors';
import { Handles, type RequestOf } from '@kw/platform-transport';
import { FilesRepository } from '../persistence/files.repository.js';
import { FileRecords } from './file-records.js';
import { fileView } from './file-view.js';
import { FragmentLookup } from './fragment-lookup.js';

type Req<M extends keyof typeof FilesService.method> = RequestOf<typeof FilesService, M>;

/** Files attached to fragments of their own workspace. Attaching is a write on the file. */
@Injectable()
export class AttachmentsHandlers {
  constructor(
    private readonly files: FilesRepository,
    private readonly records: FileRecords,
    private readonly fragments: FragmentLookup,
  ) {}

  @Handles(FilesService.method.attachFile)
  async attach(input: Req<'attachFile'>, context: RequestContext) {
    const { file, gate } = await this.records.authorizedFile(context, input.fileId, 'files:write');
    await this.fragments.requireInWorkspace(input.fragmentId, file.workspaceId);
    await this.files.attach(file.id, input.fragmentId, file.workspaceId, gate.userId);
    return { file: fileView((await this.files.findById(file.id)) ?? file) };
  }

  @Handles(FilesService.method.detachFile)
  async detach(input: Req<'detachFile'>, context: RequestContext) {
    const { file } = await this.records.authorizedFile(context, input.fileId, 'files:write');
    if (!(await this.files.detach(file.id, input.fragmentId))) throw notFound('Attachment');
    return { file: fileView((await this.files.findById(file.id)) ?? file) };
  }

  @Handles(FilesService.method.listFragmentFiles)
  async listForFragment(input: Req<'listFragmentFiles'>, context: RequestContext) {
    const workspaceId = await this.fragments.workspaceOf(input.fragmentId);
    await this.records.authorizeWorkspace(context, workspaceId, 'files:read');
    const rows = await this.files.listForFragment(input.fragmentId);
    return { files: rows.map(fileView) };
  }
}
