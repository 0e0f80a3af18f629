import type { Exchange } from './exchange.js';
import { chunkedOnly, markBody, markIdle } from './reused-reads.js';

/**
 * The undici handler of one attempt. Exchanges are reused, and a request we
 * gave up on can still report to its handler; the generation check drops
 * such late calls.
 */
export class Attempt {
  constructor(
    private readonly x: Exchange,
    private readonly generation: number,
  ) {}

  onConnect(abort: (err?: Error) => void): void {
    if (this.x.generation === this.generation) this.x.onConnect(abort);
    else abort(new Error('stale attempt'));
  }

  onRequestSent(): void {
    if (this.x.generation === this.generation) this.x.onRequestSent();
  }

  onHeaders(status: number, rawHeaders: Buffer[] | string[] | null, resume: () => void, text: string): boolean {
    const current = this.x.generation === this.generation;
    // A streamed answer's chunks come straight to onBody, past undici's parser.
    markBody(status, current && status === 200 && this.x.streamed && chunkedOnly(rawHeaders) ? this : null);
    if (current) return this.x.onHeaders(status, rawHeaders, resume, text);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.x.generation === this.generation) return this.x.onData(chunk);
    return true;
  }

  onBody(buf: Buffer, start: number, length: number): void {
    if (this.x.generation === this.generation) this.x.onBody(buf, start, length);
  }

  onComplete(trailers: unknown): void {
    markIdle();
    if (this.x.generation === this.generation) this.x.onComplete(trailers);
  }

  onError(err: Error): void {
    markIdle();
    if (this.x.generation === this.generation) this.x.onError(err);
  }
}
