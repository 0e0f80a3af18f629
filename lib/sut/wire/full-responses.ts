// Whole (non-streaming) responses: the token ids and counts of one answer or
// of a batch's, by the native body scanner when it can vouch for the body,
// else through JSON.parse.
import { native } from '../../core/binding.js';
import { S_IDS_LEN, S_SERVER_COUNT, S_STATUS, SSE_IDS, SSE_STATE } from '../scan-slots.js';
import type { WireApiName } from '../types.js';
import { errorMessageOf } from './openai-chunks.js';

export interface FullResult {
  count: number;
  ids: Int32Array | null;
}

/**
 * The results of a whole body, or why it cannot be used. With `scan`, a
 * single answer is first read by the native scanner in one call, with no
 * JSON.parse (which costs more than the rest of a request together); a body
 * it cannot vouch for (an error, no ids, another shape) goes through
 * JSON.parse. A scanned answer's ids are a view of this thread's scratch:
 * use them before the next scan.
 */
export function decodeFullBody(buf: Buffer, api: WireApiName, expected: number, scan: boolean): FullResult[] | string {
  if (scan && expected === 1) {
    native.bodyScan(buf);
    if (SSE_STATE[S_STATUS] === 0) {
      const n = SSE_STATE[S_IDS_LEN];
      const server = SSE_STATE[S_SERVER_COUNT];
      return [{ count: server >= 0 ? server : n, ids: SSE_IDS.subarray(0, n) }];
    }
  }
  let body: unknown;
  try {
    body = JSON.parse(buf.toString('utf8'));
  } catch {
    return 'the response body is not JSON';
  }
  return readFullResponses(body, api, expected);
}

/** Token ids and counts of a non-streaming response (one or a batch), or an error message. */
export function readFullResponses(body: unknown, api: WireApiName, expected: number): FullResult[] | string {
  if (api === 'generate') {
    const items = Array.isArray(body) ? body : [body];
    if (items.length !== expected) return `expected ${expected} results, got ${items.length}`;
    return items.map((it) => {
      const o = it as { output_ids?: unknown; meta_info?: { completion_tokens?: unknown } };
      const ids = Array.isArray(o.output_ids) ? Int32Array.from(o.output_ids as number[]) : null;
      const c = o.meta_info?.completion_tokens;
      return { count: typeof c === 'number' ? c : ids ? ids.length : 0, ids };
    });
  }
  const o = body as { choices?: unknown; usage?: { completion_tokens?: unknown } };
  if (!Array.isArray(o.choices)) return errorMessageOf(body) ?? 'the response has no choices';
  const out: FullResult[] = new Array(expected);
  for (const ch of o.choices as {
    index?: number;
    token_ids?: unknown;
    text?: unknown;
    message?: { content?: unknown };
  }[]) {
    const i = typeof ch.index === 'number' ? ch.index : 0;
    if (i < 0 || i >= expected) return `choice index ${i} out of range`;
    const ids = Array.isArray(ch.token_ids) ? Int32Array.from(ch.token_ids as number[]) : null;
    out[i] = { count: ids ? ids.length : 0, ids };
  }
  for (let i = 0; i < expected; i++) if (!out[i]) return `no choice for prompt ${i}`;
  const usage = o.usage?.completion_tokens;
  if (expected === 1 && typeof usage === 'number') out[0].count = usage;
  return out;
}
