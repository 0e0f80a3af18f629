// Turns issued samples into requests: one per sample, or (Offline, when the
// server takes batched prompts) several samples with equal max tokens per
// request.
import type { HttpDriver } from './http-driver.js';

export class Feeder {
  private readonly groups = new Map<number, { ids: number[]; indices: number[] }>();

  constructor(
    private readonly driver: HttpDriver,
    private readonly batchSize: number,
  ) {}

  readonly add = (id: number, index: number): void => {
    if (this.batchSize <= 1) {
      this.driver.submit(id, index);
      return;
    }
    const key = this.driver.bodies ? this.driver.bodies.maxTokens(index) : 0;
    let g = this.groups.get(key);
    if (!g) {
      g = { ids: [], indices: [] };
      this.groups.set(key, g);
    }
    g.ids.push(id);
    g.indices.push(index);
    if (g.ids.length >= this.batchSize) {
      this.driver.submitBatch(g.ids, g.indices);
      this.groups.delete(key);
    }
  };

  /** Sends the partial batches (end of a hand-over). */
  flush(): void {
    // Called after every hand-over; clear() on an empty map would still
    // allocate a new table each time (and it outlives a scavenge).
    if (this.groups.size === 0) return;
    for (const g of this.groups.values()) {
      if (g.ids.length === 1) this.driver.submit(g.ids[0], g.indices[0]);
      else this.driver.submitBatch(g.ids, g.indices);
    }
    this.groups.clear();
  }
}
