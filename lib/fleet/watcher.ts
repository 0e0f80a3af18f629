// During the run: a server that exits without being asked to is reported at
// once (with its log's last lines) and recorded as a 'crashed' event. The
// run itself goes on: the adapter's circuit breaker takes the dead endpoint
// out of the rotation after a few failed requests and the others carry the
// traffic.
import { formatTail, logTail } from './log-tail.js';
import { howEnded, type Launched } from './health.js';
import type { FleetEvent } from './types.js';

/** Watches every launched server until the returned function is called. */
export function watchExits(
  launched: readonly Launched[],
  onEvent: (e: FleetEvent, report: string) => void,
): () => void {
  let active = true;
  for (const { server, proc } of launched) {
    void proc.exited.then((exit) => {
      if (!active || proc.stopping) return;
      const tail = logTail(proc.logPath);
      const how = howEnded(server, exit);
      const message = `server ${server.name} (${server.url}) ${how} during the run; the adapter moves its traffic to the other servers`;
      onEvent(
        {
          server: server.name,
          kind: 'crashed',
          at: new Date().toISOString(),
          message,
          exitCode: exit.code,
          signal: exit.signal,
          logTail: tail,
        },
        `${message}\n${formatTail(proc.logPath, tail)}`,
      );
    });
  }
  return () => {
    active = false;
  };
}
