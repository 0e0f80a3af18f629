// Sample completion from JS: callable on the main thread and in
// worker_threads. The common case (no response bytes) packs ids into a
// buffer shared with the addon, so one native call carries a whole batch.
import { native } from './binding.js';

export interface QuerySampleResponse {
  /** The id of the QuerySample being answered. */
  id: number;
  /** Bytes for the accuracy log (token ids as int32 LE for LLMs). Copied only if the sample is logged. */
  data?: ArrayBufferView | ArrayBuffer;
  /** Number of generated tokens (needed when token latencies are on). */
  nTokens?: number;
}

const shared = native.sharedBuffer;
const capacity = native.sharedCapacity;

function hasData(responses: readonly QuerySampleResponse[]): boolean {
  for (let i = 0; i < responses.length; i++) if (responses[i].data !== undefined) return true;
  return false;
}

function packAndCall(
  responses: readonly QuerySampleResponse[],
  viaShared: (n: number) => void,
  viaArray: (buf: Float64Array, n: number) => void,
): void {
  const n = responses.length;
  const buf = n <= capacity ? shared : new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    const r = responses[i];
    buf[2 * i] = r.id;
    buf[2 * i + 1] = r.nTokens ?? 0;
  }
  if (buf === shared) viaShared(n);
  else viaArray(buf, n);
}

/** Reports samples as complete. One timestamp is taken for the whole call. */
export function querySamplesComplete(responses: readonly QuerySampleResponse[]): void {
  if (hasData(responses)) {
    native.completeObjects(responses as unknown[]);
    return;
  }
  packAndCall(responses, native.completeShared, native.completeArray);
}

/** Reports the first token of samples (token latencies: TTFT). */
export function firstTokenComplete(responses: readonly QuerySampleResponse[]): void {
  if (hasData(responses)) {
    native.firstTokenObjects(responses as unknown[]);
    return;
  }
  packAndCall(responses, native.firstTokenShared, native.firstTokenArray);
}

/** Fast form for one sample without response bytes. */
export function completeSample(id: number, nTokens = 0): void {
  shared[0] = id;
  shared[1] = nTokens;
  native.completeShared(1);
}

/** Fast form for one first token without bytes. */
export function firstTokenSample(id: number): void {
  shared[0] = id;
  shared[1] = 0;
  native.firstTokenShared(1);
}

/** Fast form for many samples without response bytes: ids (and optional token counts) as arrays. */
export function querySamplesCompleteIds(ids: ArrayLike<number>, nTokens?: ArrayLike<number>): void {
  const n = ids.length;
  const buf = n <= capacity ? shared : new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    buf[2 * i] = ids[i];
    buf[2 * i + 1] = nTokens ? nTokens[i] : 0;
  }
  if (buf === shared) native.completeShared(n);
  else native.completeArray(buf, n);
}
