// The shape of the compiled addon (native/addon/addon.cc). Internal: users
// go through the typed API in index.ts.

/** Official snake_case settings as the engine reads them; seeds as decimal strings. */
export type RawSettings = Record<string, number | boolean | string>;

export interface RawPercentile {
  percentile: number;
  value: number;
}

export interface RawSummary {
  sutName: string;
  valid: boolean;
  perfConstraintsMet: boolean;
  hasPerfConstraints: boolean;
  minDurationMet: boolean;
  minQueriesMet: boolean;
  earlyStoppingMet: boolean;
  recommendations: string[];
  earlyStoppingText: string;
  earlyStoppingTtftText: string;
  earlyStoppingTpotText: string;
  sampleCount: number;
  queryCount: number;
  overlatencyQueryCount: number;
  completedSamplesPerSec: number;
  scheduledSamplesPerSec: number;
  samplesPerSec: number;
  qpsWithLoadgenOverhead: number;
  qpsWithoutLoadgenOverhead: number;
  tokensPerSec: number;
  tokenThroughputWithOverhead: number;
  tokenThroughputOfficial: number;
  tokenThroughputCorrected: number;
  inferredTokensPerSec: number;
  targetLatencyPercentileValue: number;
  ttftTargetPercentileValue: number;
  tpotTargetPercentileValue: number;
  earlyStoppingLatencySs: number;
  earlyStoppingLatencyMs: number;
  latencyMin: number;
  latencyMax: number;
  latencyMean: number;
  latencyPercentiles: RawPercentile[];
  queryLatencyMin: number;
  queryLatencyMax: number;
  queryLatencyMean: number;
  queryLatencyPercentiles: RawPercentile[];
  tokenCount: number;
  ttftMin: number;
  ttftMax: number;
  ttftMean: number;
  ttftPercentiles: RawPercentile[];
  tpotMin: number;
  tpotMax: number;
  tpotMean: number;
  tpotPercentiles: RawPercentile[];
}

export interface RawOutcome {
  hasSummary: boolean;
  summary?: RawSummary;
  summaryText: string;
  warnings: number;
  errors: number;
  errorMessages: string[];
  unknownIds: number;
  duplicateCompletions: number;
  duplicateFirstTokens: number;
  lateFirstTokens: number;
  tokenCountErrors: number;
  missingFirstTokens: number;
  accuracyLogEntries: number;
  aborted: boolean;
  abortReason: string;
  summaryPath: string;
  detailPath: string;
  accuracyPath: string;
  tracePath: string;
  effectiveSamplesPerQuery: number;
  effectiveMinQueryCount: number;
  effectiveTargetQps: number;
  performanceSampleCount: number;
  accuracySampleCount: number;
  peakTargetQps: number;
}

export interface Dispatcher {
  /** Set by the addon: the one-query mailbox of sequential scenarios. */
  mailbox?: Float64Array;
  issue(buf: Float64Array, words: number): void;
  flush(): void;
  load(token: number, indices: Float64Array): void;
  unload(token: number, indices: Float64Array): void;
  done(outcome: RawOutcome | null, error: string | null): void;
}

export interface TestMeta {
  sutName: string;
  qslName: string;
  totalSampleCount: number;
  performanceSampleCount: number;
  auditConfig?: string;
  nativeSut?: { tokens: number };
  /** The adapter's worker queue group: the engine hands issued samples straight to its workers. */
  workerQueues?: number;
  /** Trace replay: query i is sample i, due this many ns after the test starts. */
  traceScheduleNs?: Float64Array;
}

/** An opaque handle to native storage (an N-API external). */
export type OffHeapHandle = { readonly __offHeap: unique symbol };

export interface NativeBinding {
  readonly engineVersion: string;
  readonly compatibleLoadgenVersion: string;
  readonly sharedBuffer: Float64Array;
  readonly sharedCapacity: number;
  startTest(settings: RawSettings, logSettings: object, meta: TestMeta, dispatcher: Dispatcher): void;
  qslDone(token: number, error?: string): void;
  abortTest(reason: string): void;
  progress(): { running: boolean; issuedSamples: number; completedSamples: number; elapsedNs: number };
  testRunning(): boolean;
  completeShared(n: number): void;
  firstTokenShared(n: number): void;
  completeArray(buf: Float64Array, n: number): void;
  firstTokenArray(buf: Float64Array, n: number): void;
  completeObjects(responses: unknown[]): void;
  completeBytes(id: number, nTokens: number, data?: ArrayBufferView, byteLength?: number): void;
  firstTokenBytes(id: number, data?: ArrayBufferView, byteLength?: number): void;
  issueTimes(id: number, out: Float64Array): boolean;
  nowNs(): number;
  /** SSE framing and token ids of one read (native/sse), through sseState/sseIds; returns the read's steady-clock ns. */
  sseScan(buf: Uint8Array): number;
  /** Token ids and usage count of a whole single-choice non-streaming body, through sseState/sseIds (status 0 = found). */
  bodyScan(buf: Uint8Array): void;
  /** sseScan of the read buffer's bytes [offset, offset + length) (see readBuffer). */
  sseScanRead(offset: number, length: number): number;
  /** Registers this thread's socket read buffer, into which dechunkRead's offsets point. */
  readBuffer(buf: Uint8Array): void;
  /** Bytes [offset, offset + length) of the read buffer: one body read of a chunked response, its framing stripped in place; state in dechunkState (slots in native/sse/dechunk.h). */
  dechunkRead(offset: number, length: number): void;
  /** This thread's de-chunker state. */
  dechunkState: Int32Array;
  /** This thread's scanner state (slots in native/sse/sse_scan.h) and new-ids scratch. */
  sseState: Int32Array;
  sseIds: Int32Array;
  logSutMessage(key: string, message: string, level: 0 | 1 | 2): boolean;
  /** Per-worker queues of issued samples (native/addon/worker_queues.h); returns the group id. */
  workerQueuesCreate(workers: number): number;
  workerQueuesRelease(group: number): void;
  /** Hands `pairs` (id, index) pairs to the group's workers, as the engine does. */
  workerQueuesPush(group: number, pairs: Float64Array, n: number): void;
  /** On the worker's thread: `deliver(pairs, n)` is called there with what was issued to queue k. */
  workerQueueAttach(group: number, k: number, deliver: (pairs: Float64Array, n: number) => void): void;
  workerQueueDetach(group: number, k: number): void;
  workerQueueWaiting(group: number, k: number): number;
  firstTokenObjects(responses: unknown[]): void;
  /** Busy polling on the calling thread (native/addon/busy_poll.h): allowed, with the idle window after the last request (ms). */
  busyPollEnable(idleMs: number): void;
  busyPollDisable(): void;
  /** +1 when the thread's first request starts, -1 when its last one ends. */
  busyPollHold(delta: number): void;
  busyPollStats(): { enabled: boolean; polling: boolean; holds: number; spins: number };
  /** Append-only doubles outside the JS heap (native/addon/off_heap_rows.h), freed with the handle. */
  offHeapCreate(): OffHeapHandle;
  offHeapAppend(rows: OffHeapHandle, values: Float64Array, n: number): void;
  offHeapCopy(rows: OffHeapHandle): Float64Array;
  loadSettings(
    model: string,
    scenario: string,
    mlperfConf: string | null,
    userConf: string | null,
  ): { settings: RawSettings; errors: string[]; warnings: string[] };
  benchmarkNames(): string[];
}
