// Entry of an adapter worker thread (bundled as dist/sut-worker.js): runs an
// HttpDriver fed from the dispatch ring; completions go straight from here
// into the engine.
import { parentPort, workerData } from 'node:worker_threads';

import { BodyStore, type SharedBodies } from './body-store.js';
import { RingReader, type SharedRing } from './dispatch-ring.js';
import { Feeder } from './feeder.js';
import { HttpDriver, type DriverConfig } from './http-driver.js';
import { Router, type SharedRouting } from './routing.js';

export interface WorkerInit {
  config: DriverConfig;
  routing: SharedRouting;
  ring: SharedRing;
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
  const reader = new RingReader(init.ring);

  const loop = async () => {
    for (;;) {
      if (reader.drain(feeder.add) > 0) feeder.flush();
      if (reader.closed) return;
      await reader.wait();
    }
  };
  void loop();

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
        void driver.close().then(() => {
          port.postMessage({ seq: m.seq, snapshot: driver.snapshot() });
          port.close();
        });
        break;
    }
  });
}
