// A growable int32 array for one stream's output token ids. Its bytes are
// what querySamplesComplete logs (int32 little-endian, as MLPerf's accuracy
// scripts and TEST06 read them). Reused across requests.

export class TokenBuffer {
  ids: Int32Array;
  length = 0;

  constructor(capacity = 256) {
    this.ids = new Int32Array(capacity);
  }

  push(v: number): void {
    if (this.length === this.ids.length) this.grow(this.length + 1);
    this.ids[this.length++] = v;
  }

  /** Makes room for `n` more ids. */
  reserve(n: number): void {
    if (this.length + n > this.ids.length) this.grow(this.length + n);
  }

  /** Drops ids from the end (SGLang may retract speculative tokens). */
  truncate(length: number): void {
    if (length < this.length) this.length = Math.max(0, length);
  }

  reset(): void {
    this.length = 0;
  }

  private grow(min: number): void {
    let cap = this.ids.length * 2;
    while (cap < min) cap *= 2;
    const next = new Int32Array(cap);
    next.set(this.ids.subarray(0, this.length));
    this.ids = next;
  }
}
