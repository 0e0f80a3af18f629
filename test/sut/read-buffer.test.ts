// The de-chunker's binding: a read buffer registered once per thread, reads
// passed as offsets into it, the state in one Int32Array per thread. Run in
// a fresh worker thread each, since the registration is per thread and the
// adapter's sockets register theirs on their first connection.
import { Worker } from 'node:worker_threads';

import { describe, expect, test } from 'vitest';

import { packageRoot } from '../../lib/core/binding.js';

type Outcome = { ok: true; value: unknown } | { ok: false; name: string; message: string };

/** Runs `body` (a function of the addon) in a new worker thread. */
function inThread(body: string): Promise<Outcome> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const native = require('node-gyp-build')(workerData.root);
    try {
      const value = (${body})(native);
      parentPort.postMessage({ ok: true, value });
    } catch (e) {
      parentPort.postMessage({ ok: false, name: e.name, message: e.message });
    }`;
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { root: packageRoot } });
    w.once('message', (m: Outcome) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

describe('readBuffer / dechunkRead', () => {
  test('a read in the middle of the buffer is decoded in place; the outputs are relative to its offset', async () => {
    const r = await inThread(`(native) => {
      const buf = Buffer.alloc(256, 0x2e);
      const body = '5\\r\\nhello\\r\\n3;x=1\\r\\nabc\\r\\n0\\r\\n\\r\\n';
      buf.write(body, 40, 'latin1');
      native.readBuffer(buf);
      native.dechunkState.fill(0);
      native.dechunkRead(40, body.length);
      const s = Array.from(native.dechunkState);
      return { s, payload: buf.toString('latin1', 40 + s[3], 40 + s[3] + s[4]), last: buf.toString('latin1', 40 + s[5], 40 + s[6]), before: buf[39] };
    }`);
    expect(r.ok).toBe(true);
    const v = (r as { value: { s: number[]; payload: string; last: string; before: number } }).value;
    expect(v.payload).toBe('helloabc');
    expect(v.last).toBe('0\r\n');
    expect(v.s[7]).toBe(0); // no error
    expect(v.before).toBe(0x2e); // nothing written before the read
  });

  test('state carried between reads through dechunkState', async () => {
    const r = await inThread(`(native) => {
      const buf = Buffer.alloc(64);
      native.readBuffer(buf);
      native.dechunkState.fill(0);
      const out = [];
      for (const part of ['a\\r\\n01234', '56789\\r', '\\n0\\r\\n\\r\\n']) {
        buf.write(part, 0, 'latin1');
        native.dechunkRead(0, part.length);
        const s = native.dechunkState;
        out.push(buf.toString('latin1', s[3], s[3] + s[4]));
      }
      return out.join('|') + '|' + native.dechunkState[6];
    }`);
    expect(r).toEqual({ ok: true, value: '01234|56789||4' });
  });

  test('misuse is a clear error: no buffer registered, not a Uint8Array, a read past the end, offsets that are not numbers', async () => {
    expect(await inThread('(native) => native.dechunkRead(0, 1)')).toMatchObject({
      ok: false,
      name: 'Error',
      message: 'dechunkRead: no read buffer registered (readBuffer)',
    });
    expect(await inThread("(native) => native.readBuffer('bytes')")).toMatchObject({
      ok: false,
      name: 'TypeError',
      message: 'readBuffer(buf: Uint8Array)',
    });
    expect(
      await inThread('(native) => { native.readBuffer(Buffer.alloc(16)); return native.dechunkRead(10, 7); }'),
    ).toMatchObject({
      ok: false,
      name: 'RangeError',
      message: expect.stringContaining('past the end of the read buffer'),
    });
    expect(
      await inThread("(native) => { native.readBuffer(Buffer.alloc(16)); return native.dechunkRead('0', 1); }"),
    ).toMatchObject({ ok: false, name: 'TypeError' });
    expect(
      await inThread(
        '(native) => { native.readBuffer(Buffer.alloc(16)); native.dechunkState.fill(0); native.dechunkRead(16, 0); return native.dechunkState[4]; }',
      ),
    ).toEqual({ ok: true, value: 0 });
  });
});
