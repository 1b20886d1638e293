import * as z from 'zod/v4';
import {
  FILE_CHUNKS_OFFSET_MAX,
  FILE_LIST_OFFSET_MAX,
  FILE_LIST_PAGE_MAX,
  FILE_SEARCH_OFFSET_MAX,
  FILE_SEARCH_PAGE_MAX,
  FILE_SEARCH_QUERY_MAX_CHARS,
  FilesService,
  type FileRecord,
  type FileSearchHit,
} from '@kw/contracts';
import { READ_ONLY, defineAgentTool, type AgentTool } from '../agent-tool.js';

const M = FilesService.method;
/** Chunks read_workspace_file answers at most per call: about 20,000 characters, a model's context is not a download. */
export const FILE_CHUNKS_PER_READ_MAX = 20;

function fileOut(file: FileRecord) {
  return {
    fileId: file.id,
    workspaceId: file.workspaceId,
    name: file.name,
    mimeType: file.mimeType,
    kind: file.kind,
    status: file.status,
    chunkCount: file.chunkCount,
    fragmentIds: file.fragmentIds,
  };
}

export function fileHitOut(h: FileSearchHit) {
  return {
    ...fileOut(h.file!),
    snippet: h.snippet,
    score: h.score,
    matchedBy: h.matched.split(',').filter(Boolean),
    ...(h.chunk === undefined ? {} : { chunk: h.chunk }),
  };
}

/**
 * list_workspace_files, search_workspace_files and read_workspace_file: the files routes' rules (files:read). Named
 * for the workspace so that a model does not take them for a client's own file-system tools
 * (the MCP file-system server's search_files and read_file).
 */
export const fileTools: AgentTool[] = [
  defineAgentTool({
    id: 'list_workspace_files',
    title: 'List workspace files',
    description:
      'The files (PDFs, documents, notes, data, images) uploaded to a workspace, newest first, with their ' +
      'processing status and chunk count; optionally only one status (processing, ready, failed, cancelled) ' +
      'or kind (pdf, docx, html, markdown, text, csv, json, image, other).',
    inputSchema: {
      workspaceId: z.uuid(),
      status: z.string().max(20).optional().describe('processing, ready, failed or cancelled'),
      kind: z.string().max(20).optional().describe('pdf, docx, html, markdown, text, csv, json, image or other'),
      limit: z.number().int().min(1).max(FILE_LIST_PAGE_MAX).optional(),
      offset: z.number().int().min(0).max(FILE_LIST_OFFSET_MAX).optional(),
    },
    annotations: READ_ONLY,
    async run(args, client) {
      const { files, totalCount } = await client.call(M.listFiles, {
        workspaceId: args.workspaceId,
        status: args.status ?? '',
        kind: args.kind ?? '',
        limit: args.limit ?? 20,
        offset: args.offset ?? 0,
      });
      return {
        files: files.map((f) => ({ ...fileOut(f), sizeBytes: Number(f.sizeBytes), createdAt: f.createdAt })),
        count: files.length,
        totalCount,
      };
    },
  }),

  defineAgentTool({
    id: 'search_workspace_files',
    title: 'Search workspace files',
    description:
      'Finds the files (PDFs, documents, notes, data) uploaded to a workspace by name, by the words of their ' +
      'extracted text and by meaning, best first. Each hit names the chunk its snippet comes from: read it ' +
      'with read_workspace_file.',
    inputSchema: {
      workspaceId: z.uuid(),
      query: z.string().min(1).max(FILE_SEARCH_QUERY_MAX_CHARS),
      mode: z.enum(['hybrid', 'keyword', 'semantic']).optional(),
      limit: z.number().int().min(1).max(FILE_SEARCH_PAGE_MAX).optional(),
      offset: z.number().int().min(0).max(FILE_SEARCH_OFFSET_MAX).optional(),
    },
    annotations: READ_ONLY,
    async run(args, client) {
      const { hits, totalCount } = await client.call(M.searchFiles, {
        workspaceId: args.workspaceId,
        query: args.query,
        mode: args.mode ?? 'hybrid',
        limit: args.limit ?? 10,
        offset: args.offset ?? 0,
      });
      return { hits: hits.map(fileHitOut), count: hits.length, totalCount };
    },
  }),

  defineAgentTool({
    id: 'read_workspace_file',
    title: 'Read a workspace file',
    description:
      "Reads a workspace file's extracted text in chunks of about 1,000 characters (neighbours overlap by a " +
      "sentence or two), from fromChunk (a search hit's chunk; 0 for the start). nextChunk continues; a file " +
      'not ready (processing, failed) or without text (an image) has none.',
    inputSchema: {
      fileId: z.uuid(),
      fromChunk: z.number().int().min(0).max(FILE_CHUNKS_OFFSET_MAX).optional(),
      maxChunks: z.number().int().min(1).max(FILE_CHUNKS_PER_READ_MAX).optional(),
    },
    annotations: READ_ONLY,
    async run(args, client) {
      const { file, chunks, totalCount } = await client.call(M.readFileChunks, {
        fileId: args.fileId,
        offset: args.fromChunk ?? 0,
        limit: args.maxChunks ?? 5,
      });
      const last = chunks.at(-1)?.ordinal;
      return {
        file: { ...fileOut(file!), textTruncated: file!.textTruncated },
        chunks: chunks.map((c) => ({ ordinal: c.ordinal, text: c.text })),
        nextChunk: last !== undefined && last + 1 < totalCount ? last + 1 : null,
      };
    },
  }),
];
