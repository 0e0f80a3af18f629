// Free TCP ports on 127.0.0.1 for servers a test starts. Every listener of one
// call stays open until all its ports are known: closing each before asking
// for the next lets the kernel hand the same port out twice (two simulated
// nodes then collide with EADDRINUSE).
import { createServer, type Server } from 'node:net';

/** `n` distinct ports, free at the time of the call. */
export async function freePorts(n: number): Promise<number[]> {
  const held: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = createServer();
      held.push(s);
      await new Promise<void>((res, rej) => {
        s.once('error', rej);
        s.listen(0, '127.0.0.1', () => res());
      });
    }
    return held.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(held.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}

/** One port, free at the time of the call. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}
