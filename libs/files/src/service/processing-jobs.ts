import { Injectable } from '@nestjs/common';

/**
 * The files this process is processing now, so a cancel or a delete stops the work at once
 * (the worker thread is terminated). Another replica's job notices at its next progress write,
 * which only succeeds while the file is still processing.
 */
@Injectable()
export class ProcessingJobs {
  private readonly running = new Map<string, AbortController>();

  start(fileId: string): AbortSignal {
    const controller = new AbortController();
    this.running.set(fileId, controller);
    return controller.signal;
  }

  finish(fileId: string): void {
    this.running.delete(fileId);
  }

  abort(fileId: string): void {
    this.running.get(fileId)?.abort();
  }

  abortAll(): string[] {
    const ids = [...this.running.keys()];
    for (const controller of this.running.values()) controller.abort();
    return ids;
  }
}
