// Endpoint choice shared by every thread: least outstanding requests per unit
// of weight among healthy endpoints under their in-flight caps, with a
// circuit breaker per endpoint. The state lives in SharedArrayBuffers and is
// changed with atomics, so worker threads route (and retry) without asking
// the main thread.

const I_OUTSTANDING = 0;
const I_FAILURES = 1; // consecutive
const I_STATE = 2; // CLOSED | OPEN | HALF_OPEN
const I_CAP = 3; // 0 = none
const I_OPENED = 4; // times the breaker opened
const I_STRIDE = 8;
const F_WEIGHT = 0;
const F_OPENED_AT = 1; // Date.now() ms
const F_STRIDE = 2;
// After the per-endpoint floats: since when (Date.now() ms) no circuit has
// been closed, 0 while one is.
const G_NONE_CLOSED_SINCE = 0;
const G_FLOATS = 1;

export const CLOSED = 0;
export const OPEN = 1;
export const HALF_OPEN = 2;

/** No endpoint can take a request now: all are at their caps. */
export const ROUTE_FULL = -1;
/** No endpoint is healthy: every circuit is open and cooling down. */
export const ROUTE_UNHEALTHY = -2;

export interface SharedRouting {
  ints: SharedArrayBuffer;
  floats: SharedArrayBuffer;
  failureThreshold: number;
  cooldownMs: number;
}

export class Router {
  private readonly i: Int32Array;
  private readonly f: Float64Array;
  readonly count: number;
  private readonly threshold: number;
  private readonly cooldownMs: number;
  private readonly g: number; // index of the global floats

  constructor(readonly shared: SharedRouting) {
    this.i = new Int32Array(shared.ints);
    this.f = new Float64Array(shared.floats);
    this.count = this.i.length / I_STRIDE;
    this.g = this.count * F_STRIDE;
    this.threshold = shared.failureThreshold;
    this.cooldownMs = shared.cooldownMs;
  }

  static create(
    endpoints: readonly { weight: number; maxInFlight: number }[],
    failureThreshold: number,
    cooldownMs: number,
  ): Router {
    const ints = new SharedArrayBuffer(endpoints.length * I_STRIDE * 4);
    const floats = new SharedArrayBuffer((endpoints.length * F_STRIDE + G_FLOATS) * 8);
    const r = new Router({ ints, floats, failureThreshold, cooldownMs });
    endpoints.forEach((e, k) => {
      r.i[k * I_STRIDE + I_CAP] = e.maxInFlight;
      r.f[k * F_STRIDE + F_WEIGHT] = e.weight;
    });
    return r;
  }

  /**
   * Takes a slot on the best endpoint and returns its index, or ROUTE_FULL /
   * ROUTE_UNHEALTHY. `avoid` (an endpoint that just failed) is used only if
   * nothing else can take the request.
   */
  acquire(avoid = -1): number {
    const now = Date.now();
    for (let attempt = 0; attempt < 4; attempt++) {
      let best = -1;
      let bestScore = Infinity;
      let healthy = 0;
      for (let k = 0; k < this.count; k++) {
        const base = k * I_STRIDE;
        const state = Atomics.load(this.i, base + I_STATE);
        if (state !== CLOSED) {
          // Open: after the cooldown one request may probe it (half-open).
          if (state === OPEN && now - this.f[k * F_STRIDE + F_OPENED_AT] >= this.cooldownMs) {
            if (Atomics.compareExchange(this.i, base + I_STATE, OPEN, HALF_OPEN) === OPEN) {
              Atomics.add(this.i, base + I_OUTSTANDING, 1);
              return k;
            }
          }
          continue;
        }
        healthy++;
        const out = Atomics.load(this.i, base + I_OUTSTANDING);
        const cap = this.i[base + I_CAP];
        if (cap > 0 && out >= cap) continue;
        let score = (out + 1) / this.f[k * F_STRIDE + F_WEIGHT];
        if (k === avoid) score += 1e12;
        if (score < bestScore) {
          bestScore = score;
          best = k;
        }
      }
      if (best < 0) return healthy === 0 ? ROUTE_UNHEALTHY : ROUTE_FULL;
      const base = best * I_STRIDE;
      const cap = this.i[base + I_CAP];
      const prev = Atomics.add(this.i, base + I_OUTSTANDING, 1);
      if (cap === 0 || prev < cap) return best;
      Atomics.sub(this.i, base + I_OUTSTANDING, 1); // lost a race for the last slot
    }
    return ROUTE_FULL;
  }

  /** Frees the slot taken by acquire(). */
  release(k: number): void {
    Atomics.sub(this.i, k * I_STRIDE + I_OUTSTANDING, 1);
  }

  /** A request to endpoint k succeeded (reached its first token or its end). */
  success(k: number): void {
    const base = k * I_STRIDE;
    if (this.i[base + I_FAILURES] !== 0) Atomics.store(this.i, base + I_FAILURES, 0);
    if (Atomics.load(this.i, base + I_STATE) !== CLOSED) Atomics.store(this.i, base + I_STATE, CLOSED);
    if (this.f[this.g + G_NONE_CLOSED_SINCE] !== 0) this.f[this.g + G_NONE_CLOSED_SINCE] = 0;
  }

  /** A request to endpoint k failed at the endpoint (connection, 5xx, 429, timeout). Returns true if the circuit opened. */
  failure(k: number): boolean {
    const base = k * I_STRIDE;
    const n = Atomics.add(this.i, base + I_FAILURES, 1) + 1;
    const state = Atomics.load(this.i, base + I_STATE);
    if (state === HALF_OPEN || (state === CLOSED && n >= this.threshold)) {
      if (Atomics.compareExchange(this.i, base + I_STATE, state, OPEN) === state) {
        const now = Date.now();
        this.f[k * F_STRIDE + F_OPENED_AT] = now;
        Atomics.add(this.i, base + I_OPENED, 1);
        if (this.f[this.g + G_NONE_CLOSED_SINCE] === 0 && !this.anyClosed()) this.f[this.g + G_NONE_CLOSED_SINCE] = now;
        return true;
      }
    }
    return false;
  }

  private anyClosed(): boolean {
    for (let k = 0; k < this.count; k++) if (this.state(k) === CLOSED) return true;
    return false;
  }

  /** How long no endpoint's circuit has been closed (ms; 0 while one is): every probe since has failed. */
  noneHealthyForMs(now = Date.now()): number {
    const since = this.f[this.g + G_NONE_CLOSED_SINCE];
    return since > 0 ? now - since : 0;
  }

  outstanding(k: number): number {
    return Atomics.load(this.i, k * I_STRIDE + I_OUTSTANDING);
  }

  state(k: number): number {
    return Atomics.load(this.i, k * I_STRIDE + I_STATE);
  }

  timesOpened(k: number): number {
    return Atomics.load(this.i, k * I_STRIDE + I_OPENED);
  }

  /** Time until the first open circuit may be probed (ms), for waiting when none is healthy. */
  msUntilProbe(): number {
    const now = Date.now();
    let best = Infinity;
    for (let k = 0; k < this.count; k++) {
      if (this.state(k) === OPEN) best = Math.min(best, this.f[k * F_STRIDE + F_OPENED_AT] + this.cooldownMs - now);
    }
    return Number.isFinite(best) ? Math.max(0, best) : this.cooldownMs;
  }
}
