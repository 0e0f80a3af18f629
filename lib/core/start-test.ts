// startTest: runs one LoadGen test on the engine's own thread and resolves
// with the typed result; the event loop stays free throughout.
import { native } from './binding.js';
import type { Dispatcher, RawOutcome, TestMeta } from './native-types.js';
import { holdCpuIdleLatency, type CpuIdleLatencyHold } from './cpu-idle-latency.js';
import { shapeResult, type TestResult } from './result.js';
import {
  checkIssueSameIndex,
  nonMlperfIssuePolicy,
  SettingsError,
  toEngineLogSettings,
  toEngineSettings,
  type LogSettings,
  type TestSettings,
} from './settings.js';
import { ErrorCode, LoadgenError } from './errors.js';

export interface QuerySample {
  /** Response id: hand it back in querySamplesComplete. A plain number. */
  readonly id: number;
  /** Index of the sample in the QSL. */
  readonly index: number;
}

export interface SystemUnderTest {
  name: string;
  /** May be async: a returned promise that rejects aborts the test like a throw. */
  issueQuery(samples: QuerySample[]): void | Promise<void>;
  flushQueries(): void | Promise<void>;
}

export interface QuerySampleLibrary {
  name: string;
  totalSampleCount: number;
  performanceSampleCount: number;
  loadSamplesToRam(indices: number[]): void | Promise<void>;
  unloadSamplesFromRam(indices: number[]): void | Promise<void>;
}

export interface StartTestOptions {
  /** Path of the audit.config to apply if it exists (official default: ./audit.config); null disables it. */
  auditConfig?: string | null;
  /** End the test on Ctrl-C (SIGINT), with the logs written; default true. */
  handleSigint?: boolean;
  /**
   * Linux: while the test runs, keep the CPUs out of idle states that take
   * longer than this many µs to leave (a PM QoS request on
   * /dev/cpu_dma_latency; 0 = idle CPUs poll). Timer wake-ups of the issue
   * thread and the adapter's workers then come on time on VMs whose idle
   * vCPUs halt. Needs write access to that file: without it startTest throws.
   * Default: the system's idle states are left alone.
   */
  cpuIdleLatencyUs?: number;
  /**
   * Trace replay (Server only; not an MLPerf scenario): query i is QSL sample
   * i, issued alone this many ns after the test starts, each sample once, in
   * this order. Non-decreasing offsets, at most the QSL's performance sample
   * count of them. The test is the trace: its span is the minimum duration and
   * its length the minimum query count (the official settings for both are
   * ignored); the verdict is Server's latency bounds and early stopping.
   */
  schedule?: Float64Array | readonly number[];
}

/** Checks a trace schedule and copies it into the form the engine reads. */
function checkSchedule(
  schedule: Float64Array | readonly number[],
  settings: Partial<TestSettings>,
  scenario: string,
  mode: string,
  qsl: QuerySampleLibrary,
): Float64Array {
  if (scenario !== 'Server')
    throw new SettingsError('schedule', `a trace schedule applies to the Server scenario only, not ${scenario}`);
  if (mode !== 'PerformanceOnly')
    throw new SettingsError('schedule', `a trace schedule runs in PerformanceOnly mode only, not ${mode}`);
  const other = nonMlperfIssuePolicy({ ...settings, scenario: 'Server' });
  if (other)
    throw new SettingsError(
      'schedule',
      `a trace schedule is its own issue policy; it cannot be combined with ${other}`,
    );
  const out = Float64Array.from(schedule);
  if (out.length === 0) throw new SettingsError('schedule', 'the trace schedule is empty');
  if (out.length > qsl.performanceSampleCount || out.length > qsl.totalSampleCount)
    throw new SettingsError(
      'schedule',
      `the trace schedule has ${out.length} requests; the QSL has ${Math.min(qsl.performanceSampleCount, qsl.totalSampleCount)} performance samples (one per request is needed)`,
    );
  let prev = 0;
  for (let i = 0; i < out.length; i++) {
    const t = out[i];
    if (!(Number.isSafeInteger(t) && t >= prev))
      throw new SettingsError(
        'schedule',
        `schedule[${i}] must be an integer number of ns >= the one before (${prev}), got ${String(t)}`,
      );
    prev = t;
  }
  return out;
}

/**
 * Internal: a SUT carrying this key (a worker queue group id, lib/sut) is
 * driven without the JS dispatcher; the engine's thread hands each query
 * straight to the SUT's worker threads.
 */
export const WORKER_QUEUES = Symbol.for('@x/loadgen.workerQueues');

/** A SUT implemented in C++ inside the addon that answers every sample at once (for measuring the harness). */
export interface NativeNullSut {
  readonly kind: 'native-null';
  readonly name: string;
  readonly tokens: number;
}

export function createNativeNullSut(options: { tokens?: number } = {}): NativeNullSut {
  return { kind: 'native-null', name: 'NativeNullSUT', tokens: options.tokens ?? 0 };
}

/** Rejection reason when the test was aborted (abortTest or Ctrl-C); the logs were written. */
export class TestAbortedError extends LoadgenError {
  constructor(
    message: string,
    readonly result: TestResult,
  ) {
    super(ErrorCode.Aborted, message);
  }
}

let running = false;

/** Ends the running test as soon as possible; its promise rejects with TestAbortedError after the logs are written. */
export function abortTest(reason = 'abortTest() called'): void {
  native.abortTest(reason);
}

function checkQsl(qsl: QuerySampleLibrary): void {
  if (!qsl || typeof qsl !== 'object') throw new SettingsError('qsl', 'qsl must be an object');
  for (const key of ['totalSampleCount', 'performanceSampleCount'] as const) {
    const v = qsl[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
      throw new SettingsError(`qsl.${key}`, `qsl.${key} must be a positive integer, got ${String(v)}`);
    }
  }
  if (typeof qsl.loadSamplesToRam !== 'function')
    throw new SettingsError('qsl.loadSamplesToRam', 'qsl.loadSamplesToRam must be a function');
  if (typeof qsl.unloadSamplesFromRam !== 'function') {
    throw new SettingsError('qsl.unloadSamplesFromRam', 'qsl.unloadSamplesFromRam must be a function');
  }
}

function checkSut(sut: SystemUnderTest | NativeNullSut): void {
  if (!sut || typeof sut !== 'object') throw new SettingsError('sut', 'sut must be an object');
  if ((sut as NativeNullSut).kind === 'native-null') return;
  const s = sut as SystemUnderTest;
  if (typeof s.issueQuery !== 'function')
    throw new SettingsError('sut.issueQuery', 'sut.issueQuery must be a function');
  if (typeof s.flushQueries !== 'function')
    throw new SettingsError('sut.flushQueries', 'sut.flushQueries must be a function');
}

export function startTest(
  sut: SystemUnderTest | NativeNullSut,
  qsl: QuerySampleLibrary,
  settings: Partial<TestSettings>,
  logSettings?: Partial<LogSettings>,
  options: StartTestOptions = {},
): Promise<TestResult> {
  // Validation errors throw synchronously, before anything starts.
  checkSut(sut);
  checkQsl(qsl);
  const engineSettings = toEngineSettings(settings);
  checkIssueSameIndex(engineSettings, qsl.performanceSampleCount);
  const engineLog = toEngineLogSettings(logSettings);
  if (running || native.testRunning()) {
    throw new Error('a test is already running; wait for its promise to settle before starting another');
  }
  const scenario = (settings.scenario ?? 'SingleStream') as TestSettings['scenario'];
  const mode = (settings.mode ?? 'PerformanceOnly') as TestSettings['mode'];
  const tokens = engineSettings.use_token_latencies === true;
  const isNative = (sut as NativeNullSut).kind === 'native-null';
  const jsSut = sut as SystemUnderTest;
  const meta: TestMeta = {
    sutName: String(sut.name ?? 'SUT'),
    qslName: String(qsl.name ?? 'QSL'),
    totalSampleCount: qsl.totalSampleCount,
    performanceSampleCount: qsl.performanceSampleCount,
    auditConfig: options.auditConfig === null ? '' : (options.auditConfig ?? 'audit.config'),
  };
  if (options.schedule !== undefined)
    meta.traceScheduleNs = checkSchedule(options.schedule, settings, scenario, mode, qsl);
  if (isNative) meta.nativeSut = { tokens: (sut as NativeNullSut).tokens };
  const queues = (sut as unknown as Record<symbol, unknown>)[WORKER_QUEUES];
  if (typeof queues === 'number') meta.workerQueues = queues;
  // Held from before the engine starts until its outcome is in.
  const idleHold: CpuIdleLatencyHold | null =
    options.cpuIdleLatencyUs === undefined ? null : holdCpuIdleLatency(options.cpuIdleLatencyUs);

  return new Promise<TestResult>((resolve, reject) => {
    let callbackError: unknown;
    const fail = (where: string, err: unknown) => {
      if (callbackError === undefined) callbackError = err;
      const message = err instanceof Error ? err.message : String(err);
      native.abortTest(`${where} threw: ${message}`);
    };
    const onSigint = () => native.abortTest('SIGINT');
    const handleSigint = options.handleSigint !== false;
    if (handleSigint) process.on('SIGINT', onSigint);

    // Calls a QSL method and reports to the engine (which waits) when it settles.
    const callQsl = (token: number, method: 'loadSamplesToRam' | 'unloadSamplesFromRam', indices: Float64Array) => {
      const where = `qsl.${method}`;
      const failed = (err: unknown) => {
        fail(where, err);
        native.qslDone(token, err instanceof Error ? err.message : String(err));
      };
      try {
        const result = qsl[method](Array.from(indices));
        if (result && typeof (result as Promise<void>).then === 'function') {
          (result as Promise<void>).then(() => native.qslDone(token), failed);
        } else {
          native.qslDone(token);
        }
      } catch (err) {
        failed(err);
      }
    };

    const issueRejected = (err: unknown) => fail('sut.issueQuery', err);
    const callIssue = (samples: QuerySample[]) => {
      if (callbackError !== undefined) return;
      try {
        const r = jsSut.issueQuery(samples) as unknown;
        // An async issueQuery: its rejection would otherwise be unhandled
        // and end the process instead of the test.
        if (r != null && typeof (r as Promise<void>).then === 'function')
          (r as Promise<void>).then(undefined, issueRejected);
      } catch (err) {
        fail('sut.issueQuery', err);
      }
    };
    const dispatcher: Dispatcher = {
      issue(buf: Float64Array, words: number) {
        let p = 0;
        while (p < words) {
          const n = buf[p];
          const samples: QuerySample[] = new Array(n);
          for (let i = 0; i < n; i++) samples[i] = { id: buf[p + 1 + 2 * i], index: buf[p + 2 + 2 * i] };
          p += 1 + 2 * n;
          callIssue(samples);
        }
        // SingleStream/MultiStream: a completion made inside issueQuery may
        // have put the next query in the mailbox; issue it from this loop.
        const mailbox = dispatcher.mailbox!;
        while (mailbox[0] !== 0) {
          const n = mailbox[1];
          const samples: QuerySample[] = new Array(n);
          for (let i = 0; i < n; i++) samples[i] = { id: mailbox[2 + 2 * i], index: mailbox[3 + 2 * i] };
          mailbox[0] = 0;
          callIssue(samples);
        }
      },
      flush() {
        if (isNative) return;
        try {
          const r = jsSut.flushQueries();
          if (r && typeof (r as Promise<void>).then === 'function')
            (r as Promise<void>).catch((err: unknown) => fail('sut.flushQueries', err));
        } catch (err) {
          fail('sut.flushQueries', err);
        }
      },
      load(token: number, indices: Float64Array) {
        callQsl(token, 'loadSamplesToRam', indices);
      },
      unload(token: number, indices: Float64Array) {
        callQsl(token, 'unloadSamplesFromRam', indices);
      },
      done(outcome: RawOutcome | null, error: string | null) {
        running = false;
        idleHold?.release();
        if (handleSigint) process.removeListener('SIGINT', onSigint);
        if (error !== null || outcome === null) {
          reject(new Error(`loadgen: ${error ?? 'the test failed'}`));
          return;
        }
        const result = shapeResult(outcome, scenario, mode, meta.sutName, tokens);
        result.cpuIdleLatencyUs = idleHold?.us ?? null;
        if (callbackError !== undefined) {
          if (callbackError instanceof Error) Object.assign(callbackError, { result });
          reject(callbackError);
        } else if (outcome.aborted) {
          reject(new TestAbortedError(`test aborted: ${outcome.abortReason}`, result));
        } else {
          resolve(result);
        }
      },
    };
    running = true;
    try {
      native.startTest(engineSettings, engineLog, meta, dispatcher);
    } catch (err) {
      running = false;
      idleHold?.release();
      if (handleSigint) process.removeListener('SIGINT', onSigint);
      reject(err);
    }
  });
}
