// Per-request records, kept in a bounded ring so a long run cannot exhaust
// memory. Records are live objects while their request is in flight;
// snapshots handed out are copies.
import type { SimRequestRecord } from './types.js';

export class RecordStore {
  private ring: SimRequestRecord[] = [];
  private start = 0;
  private nextSeq = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly max: number,
  ) {}

  /** Allocates the next arrival number (also when recording is off). */
  takeSeq(): number {
    return this.nextSeq++;
  }

  add(record: SimRequestRecord): void {
    if (!this.enabled) return;
    if (this.ring.length < this.max) {
      this.ring.push(record);
    } else {
      this.ring[this.start] = record;
      this.start = (this.start + 1) % this.max;
    }
  }

  snapshot(): SimRequestRecord[] {
    const out: SimRequestRecord[] = [];
    const n = this.ring.length;
    for (let i = 0; i < n; i++) out.push({ ...this.ring[(this.start + i) % n]! });
    return out;
  }

  clear(): void {
    this.ring = [];
    this.start = 0;
  }

  get size(): number {
    return this.ring.length;
  }
}

export function nowNs(): number {
  return Number(process.hrtime.bigint());
}
