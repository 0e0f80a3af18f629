// A raw HTTP/1.1 server for tests that must choose every byte of a response
// (split header blocks, chunk framing cut anywhere): requests are parsed
// (content-length bodies), answers are the test's own writes, one request at
// a time per connection.
import net from 'node:net';

export type RawAnswer = (sock: net.Socket, method: string, path: string, body: string) => Promise<void> | void;

export interface RawServer {
  url: string;
  server: net.Server;
  /** Connections accepted so far. */
  connections(): number;
}

export async function rawHttpServer(answer: RawAnswer): Promise<RawServer> {
  let connections = 0;
  const server = net.createServer((sock) => {
    connections++;
    sock.setNoDelay(true);
    let acc = Buffer.alloc(0);
    let busy = Promise.resolve();
    sock.on('error', () => {});
    sock.on('data', (d) => {
      acc = Buffer.concat([acc, d]);
      for (;;) {
        const end = acc.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = acc.subarray(0, end).toString('latin1');
        const len = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (acc.length < end + 4 + len) return;
        const body = acc.subarray(end + 4, end + 4 + len).toString();
        acc = acc.subarray(end + 4 + len);
        const [method, path] = head.split(' ');
        busy = busy.then(() => answer(sock, method, path, body));
      }
    });
  });
  const url = await new Promise<string>((r) =>
    server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`)),
  );
  return { url, server, connections: () => connections };
}
