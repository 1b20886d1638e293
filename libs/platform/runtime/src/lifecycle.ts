import { Injectable } from '@nestjs/common';

type State = 'starting' | 'ready' | 'draining';

/** Tracks whether this process should receive traffic: readiness turns off first on SIGTERM. */
@Injectable()
export class Lifecycle {
  private current: State = 'starting';

  markReady(): void {
    this.current = 'ready';
  }
  markDraining(): void {
    this.current = 'draining';
  }
  isReady(): boolean {
    return this.current === 'ready';
  }
  state(): State {
    return this.current;
  }
}
