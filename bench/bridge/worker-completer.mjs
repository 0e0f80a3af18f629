// Worker side of the worker-thread null SUT: takes sample ids from a shared
// ring and completes them straight into the engine from this thread.
import { workerData } from 'node:worker_threads';
import { querySamplesCompleteIds } from '../../dist/index.js';

const { ring, slots } = workerData;
// [head (main writes), tail (worker writes), stop, sleeping]
const ctl = new Int32Array(ring);
const ids = new Float64Array(slots);
const capacity = ids.length;
const batch = new Float64Array(4096);
let tail = 0;
for (;;) {
  const head = Atomics.load(ctl, 0);
  if (head === tail) {
    if (Atomics.load(ctl, 2) === 1) break;
    // Announce the sleep so the main thread knows a notify is needed.
    Atomics.store(ctl, 3, 1);
    if (Atomics.load(ctl, 0) === tail) Atomics.wait(ctl, 0, tail, 20);
    Atomics.store(ctl, 3, 0);
    continue;
  }
  // Complete everything queued in one call (one timestamp per batch).
  let n = 0;
  while (tail !== head && n < batch.length) {
    batch[n++] = ids[tail % capacity];
    tail = (tail + 1) | 0;
  }
  querySamplesCompleteIds(n === batch.length ? batch : batch.subarray(0, n));
  Atomics.store(ctl, 1, tail);
}
