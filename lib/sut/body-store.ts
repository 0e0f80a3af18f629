// Prebuilt request bodies of the loaded samples, in one SharedArrayBuffer so
// that worker threads read them without copies. Built by loadSamplesToRam.
import type { BuiltBody } from './wire/request-body.js';

const STRIDE = 5; // offset, length, promptStart, promptEnd, maxTokens

export interface SharedBodies {
  data: SharedArrayBuffer;
  meta: SharedArrayBuffer;
}

export class BodyStore {
  private readonly bytes: Uint8Array;
  private readonly meta: Float64Array;
  private readonly views: (Buffer | undefined)[];

  private constructor(readonly shared: SharedBodies) {
    this.bytes = new Uint8Array(shared.data);
    this.meta = new Float64Array(shared.meta);
    this.views = new Array(this.meta.length / STRIDE);
  }

  static build(size: number, bodies: ReadonlyMap<number, BuiltBody>): BodyStore {
    let total = 0;
    for (const b of bodies.values()) total += b.body.length;
    const data = new SharedArrayBuffer(Math.max(1, total));
    const meta = new SharedArrayBuffer(Math.max(1, size) * STRIDE * 8);
    const m = new Float64Array(meta);
    m.fill(-1);
    const bytes = new Uint8Array(data);
    let at = 0;
    for (const [index, b] of bodies) {
      bytes.set(b.body, at);
      const k = index * STRIDE;
      m[k] = at;
      m[k + 1] = b.body.length;
      m[k + 2] = b.promptStart;
      m[k + 3] = b.promptEnd;
      m[k + 4] = b.maxTokens;
      at += b.body.length;
    }
    return new BodyStore({ data, meta });
  }

  static attach(shared: SharedBodies): BodyStore {
    return new BodyStore(shared);
  }

  get size(): number {
    return this.views.length;
  }

  has(index: number): boolean {
    return index >= 0 && index < this.views.length && this.meta[index * STRIDE] >= 0;
  }

  /** The body of sample `index` (a view on the shared bytes, cached). */
  body(index: number): Buffer {
    let v = this.views[index];
    if (v === undefined) {
      const k = index * STRIDE;
      v = Buffer.from(this.bytes.buffer, this.meta[k], this.meta[k + 1]);
      this.views[index] = v;
    }
    return v;
  }

  entry(index: number): { body: Buffer; promptStart: number; promptEnd: number } {
    const k = index * STRIDE;
    return { body: this.body(index), promptStart: this.meta[k + 2], promptEnd: this.meta[k + 3] };
  }

  maxTokens(index: number): number {
    return this.meta[index * STRIDE + 4];
  }
}
