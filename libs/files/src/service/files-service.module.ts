import { Module } from '@nestjs/common';
import { AI_PROVIDER, createAiProvider } from '@kw/platform-ai';
import type { AppConfig } from '@kw/platform-config';
import { eventBusProvider } from '@kw/platform-outbox';
import { APP_CONFIG, blobStorageProvider, entitlementProviders } from '@kw/platform-runtime';
import { WorkspaceGate } from '@kw/platform-workspace-gate';
import { BlobSweeper } from '../events/blob-sweeper.js';
import { extractionLimitsProvider, FileProcessingWorker } from '../events/file-processing.worker.js';
import { FragmentDeletionsWorker } from '../events/fragment-deletions.worker.js';
import { ChunkVectorsRepository } from '../persistence/chunk-vectors.repository.js';
import { filesDbProviders } from '../persistence/files-database.js';
import { FilesRepository } from '../persistence/files.repository.js';
import { ProcessingRepository } from '../persistence/processing.repository.js';
import { AttachmentsHandlers } from './attachments.handlers.js';
import { ChunkVectors } from './chunk-vectors.js';
import { FileChunksHandlers } from './file-chunks.handlers.js';
import { FileListingHandlers } from './file-listing.handlers.js';
import { FileRanking } from './file-ranking.js';
import { FileRecords } from './file-records.js';
import { FileSearchHandlers } from './file-search.handlers.js';
import { FileTransfersHandlers } from './file-transfers.handlers.js';
import { FilesHandlers } from './files.handlers.js';
import { FragmentLookup } from './fragment-lookup.js';
import { ProcessingJobs } from './processing-jobs.js';
import { WorkspacePurgeHandlers } from './workspace-purge.handlers.js';

/**
 * The service side of the files component: kw.files.v1 handlers, the processing worker, the
 * clean-up of attachments to deleted fragments and the blob sweeper.
 */
@Module({
  providers: [
    ...filesDbProviders,
    eventBusProvider('files'),
    { provide: AI_PROVIDER, useFactory: (config: AppConfig) => createAiProvider(config), inject: [APP_CONFIG] },
    blobStorageProvider,
    extractionLimitsProvider,
    WorkspaceGate,
    FilesRepository,
    ProcessingRepository,
    ChunkVectorsRepository,
    ChunkVectors,
    FileRanking,
    FileRecords,
    FragmentLookup,
    ProcessingJobs,
    FilesHandlers,
    AttachmentsHandlers,
    FileSearchHandlers,
    FileChunksHandlers,
    FileListingHandlers,
    FileTransfersHandlers,
    WorkspacePurgeHandlers,
    FileProcessingWorker,
    FragmentDeletionsWorker,
    BlobSweeper,
    ...entitlementProviders,
  ],
  exports: [FileProcessingWorker, BlobSweeper],
})
export class FilesServiceModule {}
