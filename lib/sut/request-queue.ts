// The driver's two queues of requests not yet sent: exchanges that have been
// begun (retries, batches) and samples never sent, kept as plain numbers.

/** A queue with O(1) shift (Offline may park tens of thousands of samples). */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(v: T): void {
    this.items.push(v);
  }

  peek(): T {
    return this.items[this.head];
  }

  shift(): T {
    const v = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return v;
  }

  drain(): T[] {
    const all = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return all;
  }

  /** Moves the items matching `pred` into `out`, keeping the order of the rest. */
  removeIf(pred: (v: T) => boolean, out: T[]): void {
    const keep: T[] = [];
    for (let i = this.head; i < this.items.length; i++) (pred(this.items[i]) ? out : keep).push(this.items[i]);
    this.items = keep;
    this.head = 0;
  }
}

/**
 * Samples not sent yet, as (id, index, submitted ns) in one growable ring.
 * Offline issues every sample at once: parking them as numbers instead of
 * pooled exchanges keeps the pool at the in-flight cap and the heap flat
 * (an exchange keeps its grown token and body buffers for reuse).
 */
export class SampleFifo {
  private buf = new Float64Array(3 * 1024);
  private head = 0; // triples
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(id: number, index: number, atNs: number): void {
    const cap = this.buf.length / 3;
    if (this.count === cap) this.grow();
    const at = 3 * ((this.head + this.count) % (this.buf.length / 3));
    this.buf[at] = id;
    this.buf[at + 1] = index;
    this.buf[at + 2] = atNs;
    this.count++;
  }

  /** Field f (0 id, 1 index, 2 submitted ns) of the oldest sample. */
  peek(f: number): number {
    return this.buf[3 * this.head + f];
  }

  drop(): void {
    this.head = (this.head + 1) % (this.buf.length / 3);
    this.count--;
  }

  private grow(): void {
    const cap = this.buf.length / 3;
    const next = new Float64Array(this.buf.length * 2);
    for (let i = 0; i < this.count; i++)
      next.set(this.buf.subarray(3 * ((this.head + i) % cap), 3 * ((this.head + i) % cap) + 3), 3 * i);
    this.buf = next;
    this.head = 0;
  }
}
