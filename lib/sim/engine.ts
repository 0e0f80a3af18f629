// The simulated inference engine: continuous batching over a FIFO waiting
// queue, one token per running sequence per step, steps paced on the
// monotonic clock. It knows nothing about HTTP: each sequence has a listener
// that is told, once per step, that its sequences advanced.
import { outputTokenId } from './tokens.js';

export interface StepListener {
  /** Called once per step in which at least one of the listener's sequences got a token. */
  onStep(): void;
}

export type SeqState = 'new' | 'waiting' | 'running' | 'done' | 'aborted';

export class Sequence {
  state: SeqState = 'new';
  /** Generated ids so far (the last one is EOS when stopped by EOS). */
  readonly ids: number[] = [];
  /** When the engine admitted the sequence into the running batch (null before). */
  admittedNs: bigint | null = null;
  /** Prompt tokens found in the prefix cache: not prefilled again. */
  cachedTokens = 0;

  constructor(
    readonly listener: StepListener,
    readonly promptTokens: number,
    /** Total tokens to generate (>= 1). */
    readonly target: number,
    /** True if the last token is EOS (finish_reason 'stop'), false for 'length'. */
    readonly stopsOnEos: boolean,
    readonly promptHash: number,
    /** Which of the n samples of its prompt this is. */
    readonly sample: number,
  ) {}

  /** The id the engine generates at `pos` (EOS aside): known ahead of the step that makes it. */
  idAt(pos: number): number {
    return outputTokenId(this.promptHash, pos, this.sample);
  }

  get generated(): number {
    return this.ids.length;
  }

  get finished(): boolean {
    return this.state === 'done';
  }

  get finishReason(): 'stop' | 'length' | null {
    if (this.state !== 'done') return null;
    return this.stopsOnEos ? 'stop' : 'length';
  }
}

export interface EngineConfig {
  maxRunningSeqs: number;
  prefillNsPerToken: number;
  decodeStepNs: number;
  decodeStepNsPerSeq: number;
  eosTokenId: number;
  precisePacing: boolean;
  /** Called when a sequence completes (not when aborted). */
  onSeqDone?: (seq: Sequence) => void;
  /** Called when the running batch changed size (the GPU power model follows it). */
  onRunningChange?: (running: number) => void;
}

// setTimeout has millisecond granularity: it covers the whole milliseconds
// before a step is due, and (with precisePacing) setImmediate polls the
// sub-millisecond rest: a short spin that keeps I/O flowing, < 1 ms per step.
// Without precisePacing the timer rounds up: steps are up to ~1 ms late but
// cost no CPU while waiting (the schedule still never drifts).
const MS_NS = 1_000_000n;

export class Engine {
  private readonly waiting: Array<Sequence | undefined> = [];
  private waitingHead = 0;
  private waitingCount = 0;
  private readonly running = new Set<Sequence>();
  /** Due time of the step in flight (its sequences are already admitted), or null when idle. */
  private dueNs: bigint | null = null;
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private closed = false;
  totalTokens = 0;
  steps = 0;
  private reportedRunning = 0;

  constructor(private readonly cfg: EngineConfig) {}

  private runningChanged(): void {
    if (this.running.size === this.reportedRunning) return;
    this.reportedRunning = this.running.size;
    this.cfg.onRunningChange?.(this.running.size);
  }

  get runningCount(): number {
    return this.running.size;
  }

  get waitingLength(): number {
    return this.waitingCount;
  }

  /** Tokens (prompt + generated) held by running sequences: a stand-in for KV-cache use. */
  kvTokens(): number {
    let n = 0;
    for (const seq of this.running) n += seq.promptTokens + seq.ids.length;
    return n;
  }

  submit(seq: Sequence): void {
    if (this.closed) {
      seq.state = 'aborted';
      return;
    }
    seq.state = 'waiting';
    this.waiting.push(seq);
    this.waitingCount++;
    if (this.dueNs === null) this.plan(process.hrtime.bigint());
  }

  /** Frees the sequence's slot (or queue place) at once; it gets no more tokens. */
  abort(seq: Sequence): void {
    if (seq.state === 'running') {
      this.running.delete(seq);
      this.runningChanged();
    } else if (seq.state === 'waiting')
      this.waitingCount--; // removed lazily from the queue
    else if (seq.state !== 'new') return;
    seq.state = 'aborted';
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
    this.dueNs = null;
    for (const seq of this.running) seq.state = 'aborted';
    this.running.clear();
    this.runningChanged();
    for (let i = this.waitingHead; i < this.waiting.length; i++) {
      const seq = this.waiting[i];
      if (seq && seq.state === 'waiting') seq.state = 'aborted';
    }
    this.waiting.length = 0;
    this.waitingHead = 0;
    this.waitingCount = 0;
  }

  private dequeue(): Sequence | undefined {
    while (this.waitingHead < this.waiting.length) {
      const seq = this.waiting[this.waitingHead];
      this.waiting[this.waitingHead++] = undefined;
      // Compact now and then so the array does not grow forever.
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        this.waiting.splice(0, this.waitingHead);
        this.waitingHead = 0;
      }
      if (seq && seq.state === 'waiting') {
        this.waitingCount--;
        return seq;
      }
    }
    return undefined;
  }

  /**
   * Starts a step at nominal time `startNs`: admits waiting sequences into free
   * slots, prices the step, and arms the wake-up for its due time.
   */
  private plan(startNs: bigint): void {
    let prefillTokens = 0;
    while (this.running.size < this.cfg.maxRunningSeqs && this.waitingCount > 0) {
      const seq = this.dequeue();
      if (!seq) break;
      seq.state = 'running';
      seq.admittedNs = startNs;
      this.running.add(seq);
      prefillTokens += seq.promptTokens - seq.cachedTokens;
    }
    this.runningChanged();
    if (this.running.size === 0) {
      this.dueNs = null;
      return;
    }
    const { decodeStepNs, decodeStepNsPerSeq, prefillNsPerToken } = this.cfg;
    const duration = decodeStepNs + decodeStepNsPerSeq * this.running.size + prefillNsPerToken * prefillTokens;
    this.dueNs = startNs + BigInt(Math.round(duration));
    this.arm();
  }

  private arm(): void {
    const due = this.dueNs;
    if (due === null) return;
    const remaining = due - process.hrtime.bigint();
    if (remaining <= 0n) {
      this.immediate = setImmediate(this.fire);
    } else if (!this.cfg.precisePacing) {
      this.timer = setTimeout(this.fire, Number((remaining + MS_NS - 1n) / MS_NS));
    } else if (remaining >= MS_NS) {
      this.timer = setTimeout(this.fire, Number(remaining / MS_NS));
    } else {
      this.immediate = setImmediate(this.fire);
    }
  }

  private readonly fire = (): void => {
    this.timer = null;
    this.immediate = null;
    const due = this.dueNs;
    if (due === null || this.closed) return;
    if (process.hrtime.bigint() < due) {
      this.arm();
      return;
    }
    this.runStep();
    // The next step starts when this one was due, not when the callback ran:
    // lateness is caught up instead of accumulating as drift.
    if (this.running.size > 0 || this.waitingCount > 0) this.plan(due);
    else this.dueNs = null;
  };

  /** Every running sequence gets one token; listeners hear about it afterwards. */
  private runStep(): void {
    this.steps++;
    const touched = new Set<StepListener>();
    const eos = this.cfg.eosTokenId;
    for (const seq of this.running) {
      const pos = seq.ids.length;
      const last = pos + 1 >= seq.target;
      seq.ids.push(last && seq.stopsOnEos ? eos : outputTokenId(seq.promptHash, pos, seq.sample));
      this.totalTokens++;
      if (last) {
        seq.state = 'done';
        this.running.delete(seq); // deleting the current entry is safe while iterating a Set
        this.cfg.onSeqDone?.(seq);
      }
      touched.add(seq.listener);
    }
    this.runningChanged();
    for (const listener of touched) {
      try {
        listener.onStep();
      } catch {
        // A listener bug must not stop the engine for everyone else.
      }
    }
  }
}
