// Appends completed samples to this thread's journal segment. Runs on the
// adapter's completion path (worker threads), so it must cost next to
// nothing: records are copied into one buffer, and the buffer goes to the
// kernel with one write() per event-loop turn. A write() survives the
// process being killed (the page cache belongs to the kernel), so kill -9
// loses only the samples completed in the current turn. Against a machine
// crash, an fdatasync runs off-thread (libuv pool) at most once a second.
import { closeSync, fdatasync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { JOURNAL_MAGIC, PAYLOAD_FIXED, RECORD_FIXED, RECORD_HEAD, wordChecksum } from './journal-format.js';

/** What a driver needs to journal: where, this run's tag, and the shared on/off switch. */
export interface JournalTarget {
  /** The journal directory (DIR/journal). */
  dir: string;
  /** Distinguishes this process run's segments from earlier runs' (resume appends new segments). */
  tag: string;
  /** Int32Array view: [0] = 1 while completions belong to the accuracy pass. */
  enabled: SharedArrayBuffer;
}

const SYNC_EVERY_MS = 1000;

export class JournalWriter {
  private fd = -1;
  private buf = Buffer.alloc(64 * 1024);
  // Word views over buf (its own ArrayBuffer, offset 0): fields and ids go in as 32-bit words.
  private u32 = new Uint32Array(this.buf.buffer, this.buf.byteOffset, this.buf.length >> 2);
  private i32 = new Int32Array(this.buf.buffer, this.buf.byteOffset, this.buf.length >> 2);
  private len = 0;
  private flushQueued = false;
  private dirty = false;
  private syncing = false;
  private readonly syncTimer: NodeJS.Timeout;
  private readonly on: Int32Array;
  private readonly path: string;
  private closed = false;
  /** Records appended by this writer. */
  records = 0;

  constructor(target: JournalTarget) {
    this.on = new Int32Array(target.enabled);
    this.path = join(target.dir, `seg-${target.tag}-t${threadId}.bin`);
    this.syncTimer = setInterval(() => this.syncLater(), SYNC_EVERY_MS);
    this.syncTimer.unref();
  }

  /** True while completions should be journaled (the accuracy pass). */
  get enabled(): boolean {
    return this.on[0] === 1;
  }

  append(
    qslIdx: number,
    nTokens: number,
    ids: Int32Array | null,
    nIds: number,
    firstToken: number,
    endpoint: number,
    ttftNs: number,
    latencyNs: number,
  ): void {
    if (this.closed) return;
    const need = RECORD_FIXED + 4 * nIds;
    if (this.len + need > this.buf.length) this.grow(this.len + need);
    const w = this.u32;
    const at = this.len >> 2; // records are whole words
    w[at] = JOURNAL_MAGIC;
    w[at + 1] = PAYLOAD_FIXED + 4 * nIds;
    const p = at + (RECORD_HEAD >> 2);
    w[p] = qslIdx >>> 0;
    w[p + 1] = nTokens >>> 0;
    w[p + 2] = nIds;
    w[p + 3] = (firstToken & 0xff) | ((endpoint & 0xff) << 8);
    this.buf.writeDoubleLE(ttftNs, (p + 4) * 4);
    this.buf.writeDoubleLE(latencyNs, (p + 6) * 4);
    if (nIds > 0 && ids !== null)
      this.i32.set(nIds === ids.length ? ids : ids.subarray(0, nIds), p + (PAYLOAD_FIXED >> 2));
    const end = p + (PAYLOAD_FIXED >> 2) + nIds;
    w[end] = wordChecksum(w, p, end);
    this.len = (end + 1) * 4;
    this.records++;
    if (!this.flushQueued) {
      this.flushQueued = true;
      setImmediate(this.flush);
    }
  }

  /** Hands the buffered records to the kernel (one write). */
  readonly flush = (): void => {
    this.flushQueued = false;
    if (this.len === 0) return;
    if (this.fd < 0) {
      mkdirSync(join(this.path, '..'), { recursive: true });
      this.fd = openSync(this.path, 'a');
    }
    let off = 0;
    while (off < this.len) off += writeSync(this.fd, this.buf, off, this.len - off);
    this.len = 0;
    this.dirty = true;
  };

  private syncLater(): void {
    if (!this.dirty || this.syncing || this.fd < 0) return;
    this.dirty = false;
    this.syncing = true;
    fdatasync(this.fd, () => {
      this.syncing = false;
    });
  }

  private grow(min: number): void {
    let cap = this.buf.length * 2;
    while (cap < min) cap *= 2;
    const next = Buffer.alloc(cap);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
    this.u32 = new Uint32Array(next.buffer, next.byteOffset, next.length >> 2);
    this.i32 = new Int32Array(next.buffer, next.byteOffset, next.length >> 2);
  }

  /** Writes what is buffered, syncs, and closes the segment. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    clearInterval(this.syncTimer);
    if (this.fd >= 0) {
      try {
        fsyncSync(this.fd);
      } finally {
        closeSync(this.fd);
        this.fd = -1;
      }
    }
  }
}
