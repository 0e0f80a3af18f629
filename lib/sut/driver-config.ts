// What one thread's driver is given: the endpoints it may send to, the API
// and its timeouts, retries and limits (built by llm-sut.ts, passed to each
// worker).
import type { JournalTarget } from '../resume/journal-writer.js';
import type { TokenSource, WireApiName } from './types.js';

export interface DriverEndpoint {
  /** scheme://host:port */
  origin: string;
  /** Path prefix before the API path ('' for most servers). */
  prefix: string;
  /**
   * Connections this thread may open to it: the endpoint's in-flight cap.
   * Unbounded, undici opens a new connection whenever a request is sent
   * from a response's completion (its connection is not free yet), and the
   * count creeps up with connects paid on the hot path.
   */
  maxConnections: number;
  /** Headers for this endpoint only, in place of DriverConfig.headers (its URL's Basic authorization). */
  headers?: Record<string, string>;
}

export interface DriverConfig {
  endpoints: DriverEndpoint[];
  api: WireApiName;
  path: string;
  tokenSource: TokenSource;
  stream: boolean;
  headers: Record<string, string>;
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
  totalMs: number;
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No endpoint healthy for this long: waiting samples fail (0 = never). */
  giveUpMs: number;
  recordTimings: boolean;
  /** Failed samples written to the detail log one by one (then only counted). */
  maxErrorLines: number;
  /**
   * Requests dispatched but not yet written, per driver. Bounds the burst of
   * new connections when thousands of samples are issued at once (Offline):
   * a server's listen backlog (511 in Node, 2048 in uvicorn) would drop the
   * excess SYNs and the kernel retries them only after 1 s, then 3 s.
   */
  maxUnsent: number;
  /** Poll instead of sleeping while requests are in flight and idleMs after (native/addon/busy_poll.h); null = sleep. */
  busyPoll?: { idleMs: number } | null;
  /** Append every completed sample to a journal (accuracy and submission runs; see lib/resume). */
  journal?: JournalTarget | null;
  /** Int32Array view shared with the main thread: [0] output tokens, [1] samples completed (live budgets), [2] samples failed and [3] failed requests (retried ones too) when it is that long. */
  counters?: SharedArrayBuffer | null;
}
