import type { FileSearchHit } from '@kw/contracts';
import type { FileSearchHitDto } from './dto/search.dto.js';

/** A file shown beside a workspace or global search's fragments (`filesBesideSearch`), as the REST answer names it. */
export function fileHitJson({ file, score, matched, snippet, chunk }: FileSearchHit): FileSearchHitDto {
  return {
    kind: 'file' as const,
    fileId: file!.id,
    workspaceId: file!.workspaceId,
    name: file!.name,
    mimeType: file!.mimeType,
    fileKind: file!.kind,
    snippet,
    score,
    matchedBy: matched.split(',').filter(Boolean),
    ...(chunk === undefined ? {} : { chunk }),
    fragmentIds: file!.fragmentIds,
    createdAt: file!.createdAt,
    updatedAt: file!.updatedAt,
  };
}
