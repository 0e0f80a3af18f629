// Worker side of the worker-thread null SUT: takes sample ids from a shared
// ring and completes them straight into the engine from this thread.
import { workerData } from 'node:worker_threads';
import { completeSample } from '../../dist/index.js';

const { ring, slots } = workerData;
const ctl = new Int32Array(ring); // [head (written by main), tail (written here), stop]
const ids = new Float64Array(slots);
const capacity = ids.length;
let tail = 0;
for (;;) {
  let head = Atomics.load(ctl, 0);
  if (head === tail) {
    if (Atomics.load(ctl, 2) === 1) break;
    Atomics.wait(ctl, 0, head, 50);
    continue;
  }
  while (tail !== head) {
    completeSample(ids[tail % capacity]);
    tail = (tail + 1) | 0;
  }
  Atomics.store(ctl, 1, tail);
}
