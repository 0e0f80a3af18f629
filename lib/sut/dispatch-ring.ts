// Main thread -> worker hand-off of (response id, sample index) pairs: a
// single-producer single-consumer ring in a SharedArrayBuffer, with a wake-up
// through Atomics.notify only when the worker sleeps. No message and no
// allocation per sample.

const H_WRITE = 0; // pairs written, ever (wraps at 2^31: compared by difference)
const H_READ = 1; // pairs read, ever
const H_SEQ = 2; // wake-up sequence
const H_SLEEPING = 3;
const H_CLOSED = 4;

export interface SharedRing {
  header: SharedArrayBuffer;
  data: SharedArrayBuffer;
}

export function createRing(capacity = 1 << 16): SharedRing {
  if (capacity < 2 || (capacity & (capacity - 1)) !== 0) throw new RangeError(`ring capacity must be a power of two, got ${capacity}`);
  return { header: new SharedArrayBuffer(8 * 4), data: new SharedArrayBuffer(capacity * 2 * 8) };
}

export class RingWriter {
  private readonly h: Int32Array;
  private readonly d: Float64Array;
  private readonly cap: number;

  constructor(ring: SharedRing) {
    this.h = new Int32Array(ring.header);
    this.d = new Float64Array(ring.data);
    this.cap = this.d.length / 2;
  }

  /** Room for this many more pairs. */
  get space(): number {
    return this.cap - ((Atomics.load(this.h, H_WRITE) - Atomics.load(this.h, H_READ)) | 0);
  }

  /** Writes pairs [from, to) of ids/indices that fit; returns how many were written. Call wake() after. */
  write(ids: ArrayLike<number>, indices: ArrayLike<number>, from: number, to: number): number {
    const w = Atomics.load(this.h, H_WRITE);
    const n = Math.min(to - from, this.cap - ((w - Atomics.load(this.h, H_READ)) | 0));
    for (let i = 0; i < n; i++) {
      const slot = ((w + i) >>> 0) % this.cap;
      this.d[2 * slot] = ids[from + i];
      this.d[2 * slot + 1] = indices[from + i];
    }
    Atomics.store(this.h, H_WRITE, (w + n) | 0);
    return n;
  }

  wake(): void {
    if (Atomics.load(this.h, H_SLEEPING) === 1) {
      Atomics.store(this.h, H_SLEEPING, 0);
      Atomics.add(this.h, H_SEQ, 1);
      Atomics.notify(this.h, H_SEQ);
    }
  }

  close(): void {
    Atomics.store(this.h, H_CLOSED, 1);
    Atomics.add(this.h, H_SEQ, 1);
    Atomics.notify(this.h, H_SEQ);
  }
}

export class RingReader {
  private readonly h: Int32Array;
  private readonly d: Float64Array;
  private readonly cap: number;

  constructor(ring: SharedRing) {
    this.h = new Int32Array(ring.header);
    this.d = new Float64Array(ring.data);
    this.cap = this.d.length / 2;
  }

  /** Hands every waiting pair to `take`; returns how many. */
  drain(take: (id: number, index: number) => void): number {
    let r = Atomics.load(this.h, H_READ);
    const w = Atomics.load(this.h, H_WRITE);
    let n = 0;
    while (r !== w) {
      const slot = (r >>> 0) % this.cap;
      take(this.d[2 * slot], this.d[2 * slot + 1]);
      r = (r + 1) | 0;
      n++;
      if ((n & 1023) === 0) Atomics.store(this.h, H_READ, r); // free space early on long drains
    }
    Atomics.store(this.h, H_READ, r);
    return n;
  }

  get closed(): boolean {
    return Atomics.load(this.h, H_CLOSED) === 1;
  }

  /** Resolves when pairs may be waiting (or the ring closed). */
  async wait(): Promise<void> {
    const seq = Atomics.load(this.h, H_SEQ);
    Atomics.store(this.h, H_SLEEPING, 1);
    if (Atomics.load(this.h, H_WRITE) !== Atomics.load(this.h, H_READ) || this.closed) {
      Atomics.store(this.h, H_SLEEPING, 0);
      return;
    }
    const r = (Atomics as unknown as AtomicsWithWaitAsync).waitAsync(this.h, H_SEQ, seq);
    if (r.async) await r.value;
  }
}

// Node 20 has Atomics.waitAsync; the ES2022 lib typings do not.
interface AtomicsWithWaitAsync {
  waitAsync(a: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}
