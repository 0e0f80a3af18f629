// The native SSE scanner's state as this thread shares it (native/sse/sse_scan.h):
// one Int32Array of slots and one of token ids per thread, not per stream. A
// reader loads its stream's state into the slots before each scan and takes
// the results out after, before anything else scans.
import { native } from '../core/binding.js';

// Slots (sse_scan.h, enum Slot).
export const S_IDS_LEN = 0;
export const S_SERVER_COUNT = 1;
export const S_FINISHED = 2;
export const S_DONE = 3;
export const S_STATUS = 4;
export const S_CONSUMED = 5;
export const S_EVENT_START = 6;
export const S_EVENT_END = 7;
export const S_TOKEN_CHUNKS = 8;
export const S_MULTI_CHUNKS = 9;
export const S_CRLF = 11;

// Values of S_STATUS (sse_scan.h, enum Status); 0 = everything handled.
export const STATUS_NEED_ROOM = 1;
export const STATUS_HAND_BACK = 2;

export const SSE_STATE = native.sseState;
export const SSE_IDS = native.sseIds;
