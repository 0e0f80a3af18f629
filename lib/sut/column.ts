// An append-only column of numbers (one value per request: TTFT, latency,
// recordTimings' rows) whose values live outside the JS heap.
//
// Pushes fill a small typed array that is reused; when it is full its values
// are copied into native storage (native/addon/off_heap_rows.h), which V8
// neither sees nor counts. Held in typed-array blocks, a column was external
// memory counted against V8's global allocation limit: a worker recording
// timings at 9,400 requests/s grew it by ~1.2 MB/s and ran a mark-compact
// (3-17 ms, a TTFT outlier burst each) every ~5 s, where without the
// columns it ran none in 30 s.
import { native } from '../core/binding.js';
import type { OffHeapHandle } from '../core/native-types.js';

export class Column {
  length = 0;
  private readonly stage: Float64Array;
  private staged = 0;
  private readonly rows: OffHeapHandle = native.offHeapCreate();

  /** `stageSize`: values buffered before each copy into native storage. */
  constructor(stageSize = 512) {
    this.stage = new Float64Array(stageSize);
  }

  push(v: number): void {
    if (this.staged === this.stage.length) this.flush();
    this.stage[this.staged++] = v;
    this.length++;
  }

  /** A contiguous copy of the values (for reports, off the hot path). */
  toArray(): Float64Array {
    this.flush();
    return native.offHeapCopy(this.rows);
  }

  private flush(): void {
    if (this.staged === 0) return;
    native.offHeapAppend(this.rows, this.stage, this.staged);
    this.staged = 0;
  }
}
