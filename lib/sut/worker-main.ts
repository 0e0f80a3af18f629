// Entry of an adapter worker thread (bundled as dist/sut-worker.js): runs an
// HttpDriver fed by its native queue, which the engine's issue thread fills
// and wakes directly; completions go straight from here into the engine.
import { parentPort, workerData } from 'node:worker_threads';

import { native } from '../core/binding.js';
import { BodyStore, type SharedBodies } from './body-store.js';
import { Feeder } from './feeder.js';
import type { DriverConfig } from './driver-config.js';
import { HttpDriver } from './http-driver.js';
import { Router, type SharedRouting } from './routing.js';

export interface WorkerInit {
  config: DriverConfig;
  routing: SharedRouting;
  /** Native issue queue k of group (native/addon/worker_queues.h). */
  queue: { group: number; index: number };
  batchSize: number;
}

export type WorkerRequest =
  | { type: 'bodies'; seq: number; bodies: SharedBodies }
  | { type: 'snapshot'; seq: number }
  | { type: 'idle'; seq: number }
  | { type: 'close'; seq: number };

if (parentPort) {
  const port = parentPort;
  const init = workerData as WorkerInit;
  const driver = new HttpDriver(init.config, new Router(init.routing), null);
  const feeder = new Feeder(driver, init.batchSize);
  const { group, index } = init.queue;
  native.workerQueueAttach(group, index, (pairs: Float64Array, n: number) => {
    for (let i = 0; i < n; i++) feeder.add(pairs[2 * i], pairs[2 * i + 1]);
    feeder.flush();
  });

  port.on('message', (m: WorkerRequest) => {
    switch (m.type) {
      case 'bodies':
        driver.bodies = BodyStore.attach(m.bodies);
        port.postMessage({ seq: m.seq });
        break;
      case 'snapshot':
        port.postMessage({ seq: m.seq, snapshot: driver.snapshot() });
        break;
      case 'idle':
        void driver.whenIdle().then(() => port.postMessage({ seq: m.seq }));
        break;
      case 'close':
        native.workerQueueDetach(group, index);
        void driver.close().then(() => {
          port.postMessage({ seq: m.seq, snapshot: driver.snapshot() });
          port.close();
        });
        break;
    }
  });
}
