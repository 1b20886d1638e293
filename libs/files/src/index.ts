export * from './files.component.js';
export { BlobSweeper, type SweepResult } from './events/blob-sweeper.js';
export { FileProcessingWorker } from './events/file-processing.worker.js';
