import { Injectable } from '@nestjs/common';
import { FilesService, FragmentsService } from '@kw/contracts';
import { AppError, notFound } from '@kw/platform-errors';
import { ServiceClient } from '@kw/platform-transport';
import { EMBED_CONTEXT_ITEM_MAX_CHARS } from '../../chat-limits.js';

export interface ContextItem {
  contextType: string;
  contextId: string;
}

const COLLECTION_TITLES_MAX = 50;
const clip = (text: string) =>
  text.length > EMBED_CONTEXT_ITEM_MAX_CHARS ? `${text.slice(0, EMBED_CONTEXT_ITEM_MAX_CHARS)}…` : text;

/**
 * Reads the context items of a turn as the chatting user (the request's caller), for the
 * agent's instructions: a fragment's content, a collection's name and fragment titles, a file's
 * name and description. An item outside the configuration's workspace answers 404 like one the
 * user cannot read.
 */
@Injectable()
export class ContextItems {
  constructor(private readonly client: ServiceClient) {}

  /**
   * The items as text blocks. Items the client sent must all be readable (else their error);
   * the configuration's default items that are gone or unreadable are left out.
   */
  async read(workspaceId: string, asked: ContextItem[], defaults: ContextItem[]): Promise<string[]> {
    const askedBlocks = await Promise.all(asked.map((item) => this.readOne(workspaceId, item)));
    const defaultBlocks = await Promise.all(
      defaults.map((item) =>
        this.readOne(workspaceId, item).catch((err: unknown) => {
          if (AppError.isAppError(err) && (err.status === 404 || err.status === 403)) return '';
          throw err;
        }),
      ),
    );
    return [...defaultBlocks, ...askedBlocks].filter(Boolean);
  }

  private async readOne(workspaceId: string, item: ContextItem): Promise<string> {
    switch (item.contextType) {
      case 'fragment': {
        const { fragment } = await this.client.call(FragmentsService.method.getFragment, {
          fragmentId: item.contextId,
        });
        if (!fragment || fragment.workspaceId !== workspaceId) throw notFound('Fragment');
        return `Fragment "${fragment.title}" (id ${fragment.id}):\n${clip(fragment.content)}`;
      }
      case 'collection': {
        const [{ collection }, { items, totalCount }] = await Promise.all([
          this.client.call(FragmentsService.method.getCollection, { workspaceId, collectionId: item.contextId }),
          this.client.call(FragmentsService.method.listCollectionFragments, {
            workspaceId,
            collectionId: item.contextId,
            limit: COLLECTION_TITLES_MAX,
            offset: 0,
          }),
        ]);
        const titles = items.map((f) => `- ${f.title} (id ${f.id})`).join('\n');
        return clip(
          `Collection "${collection!.name}" (id ${collection!.id}, ${totalCount} fragments)` +
            (collection!.description ? `: ${collection!.description}` : '') +
            (titles ? `\n${titles}` : ''),
        );
      }
      default: {
        const { file } = await this.client.call(FilesService.method.getFile, { fileId: item.contextId });
        if (!file || file.workspaceId !== workspaceId) throw notFound('File');
        return clip(
          `File "${file.name}" (id ${file.id}, ${file.kind}, ${file.status})` +
            (file.description ? `: ${file.description}` : ''),
        );
      }
    }
  }
}
