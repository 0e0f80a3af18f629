import { describe, expect, test } from 'vitest';

import { SseReader, type SseSink } from '../../lib/sut/sse.js';

function collect() {
  const events: string[] = [];
  const sink: SseSink = {
    onSseData: (text, s, e) => events.push(Buffer.from(text.slice(s, e), 'latin1').toString('utf8')),
    onSseDone: () => events.push('<DONE>'),
  };
  return { events, sink };
}

const STREAM =
  'data: {"a":1}\n\n' +
  ': keep-alive comment\n\n' +
  'data:{"b":2}\n\n' +
  'event: x\ndata: {"c":\ndata: 3}\n\n' +
  'data: {"text":"é ü 漢字"}\n\n' +
  'data: [DONE]\n\n';
const EXPECTED = ['{"a":1}', '{"b":2}', '{"c":\n3}', '{"text":"é ü 漢字"}', '<DONE>'];

describe('SseReader', () => {
  test('one read holding every event', () => {
    const { events, sink } = collect();
    new SseReader().push(Buffer.from(STREAM), sink);
    expect(events).toEqual(EXPECTED);
  });

  test('every split point, including inside separators and multi-byte characters', () => {
    const bytes = Buffer.from(STREAM);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { events, sink } = collect();
      const r = new SseReader();
      r.push(bytes.subarray(0, cut), sink);
      r.push(bytes.subarray(cut), sink);
      expect(events, `cut at ${cut}`).toEqual(EXPECTED);
    }
  });

  test('byte by byte', () => {
    const bytes = Buffer.from(STREAM);
    const { events, sink } = collect();
    const r = new SseReader();
    for (let i = 0; i < bytes.length; i++) r.push(bytes.subarray(i, i + 1), sink);
    expect(events).toEqual(EXPECTED);
  });

  test('CRLF line ends', () => {
    const crlf = STREAM.replace(/\n/g, '\r\n');
    const bytes = Buffer.from(crlf);
    for (const cut of [1, 7, 15, 16, 17, 30, bytes.length - 2]) {
      const { events, sink } = collect();
      const r = new SseReader();
      r.push(bytes.subarray(0, cut), sink);
      r.push(bytes.subarray(cut), sink);
      expect(events, `cut at ${cut}`).toEqual(EXPECTED);
    }
  });

  test('a last event without its blank line is delivered at end()', () => {
    const { events, sink } = collect();
    const r = new SseReader();
    r.push(Buffer.from('data: {"a":1}\n\ndata: {"b":2}\n'), sink);
    expect(events).toEqual(['{"a":1}']);
    expect(r.pending).toBeGreaterThan(0);
    r.end(sink);
    expect(events).toEqual(['{"a":1}', '{"b":2}']);
  });

  test('an event larger than the carry buffer', () => {
    const big = 'x'.repeat(100_000);
    const bytes = Buffer.from(`data: {"t":"${big}"}\n\ndata: [DONE]\n\n`);
    const { events, sink } = collect();
    const r = new SseReader();
    for (let i = 0; i < bytes.length; i += 1000) r.push(bytes.subarray(i, i + 1000), sink);
    expect(events.length).toBe(2);
    expect(events[0].length).toBe(big.length + 8);
    expect(events[1]).toBe('<DONE>');
  });

  test('reset() forgets a partial event', () => {
    const { events, sink } = collect();
    const r = new SseReader();
    r.push(Buffer.from('data: {"half'), sink);
    r.reset();
    r.push(Buffer.from('data: {"a":1}\n\n'), sink);
    expect(events).toEqual(['{"a":1}']);
  });
});
