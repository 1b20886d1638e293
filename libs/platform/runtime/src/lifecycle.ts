import { Injectable } from '@nestjs/common';

type State = 'starting' | 'ready' | 'draining';

/**
 * Tracks whether this process should receive traffic. The port is bound only once ready and
 * closed on SIGTERM, so `starting` and `draining` are seen only by the HTTP edge (a request on a
 * connection opened before the drain is refused with 503), not by a new probe connection.
 */
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
