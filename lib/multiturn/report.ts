// The `multiturn` section of a run's record: per-turn TTFT/TPOT/latency,
// per-conversation outcomes and latency, and tool-call figures. Live runs
// build it from what the live SUT measured; replay runs from the adapter's
// per-sample timings, each sample being one turn.
import { percentiles } from '../sut/stats.js';
import type { SampleTiming } from '../sut/types.js';
import type { ReplayDataset } from './replay.js';
import type { ConversationOutcome, MultiturnMode, MultiturnReport, ToolFigures, TurnFigures } from './types.js';

/** One measured request (live: a turn's request or one of its tool rounds; replay: one turn). */
export interface TurnRequest {
  turn: number;
  ok: boolean;
  /** ns; NaN when unknown. */
  ttftNs: number;
  tpotNs: number;
  latencyNs: number;
  /** Server-counted prompt tokens, -1 when unknown. */
  promptTokens: number;
}

const MAX_OUTCOMES = 200;

function perTurn(requests: readonly TurnRequest[]): TurnFigures[] {
  const byTurn = new Map<number, TurnRequest[]>();
  for (const r of requests) {
    let list = byTurn.get(r.turn);
    if (!list) byTurn.set(r.turn, (list = []));
    list.push(r);
  }
  return [...byTurn.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([turn, list]) => {
      const ok = list.filter((r) => r.ok);
      const prompts = ok.map((r) => r.promptTokens).filter((n) => n >= 0);
      return {
        turn,
        requests: list.length,
        failed: list.length - ok.length,
        ttftMs: percentiles(
          ok.map((r) => r.ttftNs),
          1e-6,
        ),
        tpotMs: percentiles(
          ok.map((r) => r.tpotNs),
          1e-6,
        ),
        latencyMs: percentiles(
          ok.map((r) => r.latencyNs),
          1e-6,
        ),
        promptTokensMean: prompts.length > 0 ? prompts.reduce((a, b) => a + b, 0) / prompts.length : null,
      };
    });
}

export interface MultiturnInput {
  mode: MultiturnMode;
  outcomes: readonly ConversationOutcome[];
  /** Turns in all conversations. */
  totalTurns: number;
  requests: readonly TurnRequest[];
  tools: ToolFigures | null;
}

export function buildMultiturnReport(i: MultiturnInput): MultiturnReport {
  const failed = i.outcomes.filter((o) => !o.ok);
  const turnsCompleted = i.outcomes.reduce((a, o) => a + o.turnsCompleted, 0);
  const latencies = i.outcomes.filter((o) => o.ok && o.latencyMs !== null).map((o) => o.latencyMs as number);
  return {
    mode: i.mode,
    sample: i.mode === 'live' ? 'conversation' : 'turn',
    conversations: { total: i.outcomes.length, completed: i.outcomes.length - failed.length, failed: failed.length },
    turns: { total: i.totalTurns, completed: turnsCompleted, failed: i.totalTurns - turnsCompleted },
    perTurn: perTurn(i.requests),
    conversationLatencyMs: i.mode === 'live' ? percentiles(latencies) : null,
    tools: i.tools,
    outcomes: [...failed, ...i.outcomes.filter((o) => o.ok)].slice(0, MAX_OUTCOMES),
  };
}

/**
 * Replay: each sample is a turn. A turn counts as done when its sample
 * completed (LoadGen may issue a sample several times, or not at all in a
 * short run: a turn's last issue decides); a conversation is failed when any
 * of its issued turns failed.
 */
export function replayReport(ds: ReplayDataset, timings: readonly SampleTiming[] | undefined): MultiturnReport {
  const requests: TurnRequest[] = [];
  const turnOk = new Map<number, boolean>();
  const errors = new Map<number, string>();
  for (const t of timings ?? []) {
    const ref = ds.turns[t.index];
    if (!ref) continue;
    const tokens = t.tokens;
    requests.push({
      turn: ref.turn,
      ok: t.ok,
      ttftNs: t.firstTokenNs - t.sentNs,
      tpotNs: tokens > 1 ? (t.endNs - t.firstTokenNs) / (tokens - 1) : NaN,
      latencyNs: t.endNs - t.sentNs,
      promptTokens: -1,
    });
    turnOk.set(t.index, t.ok);
    if (!t.ok && t.error) errors.set(t.index, t.error);
  }
  let sample = 0;
  const outcomes: ConversationOutcome[] = ds.conversations.map((c) => {
    let done = 0;
    let failedTurn: number | undefined;
    let error: string | undefined;
    c.turns.forEach((_, k) => {
      const ok = turnOk.get(sample);
      if (ok === true) done++;
      else if (ok === false && failedTurn === undefined) {
        failedTurn = k;
        error = errors.get(sample) ?? 'the request failed';
      }
      sample++;
    });
    const o: ConversationOutcome = {
      id: c.id,
      ok: failedTurn === undefined,
      turnsCompleted: done,
      turns: c.turns.length,
      latencyMs: null,
    };
    if (failedTurn !== undefined) Object.assign(o, { failedTurn, error });
    return o;
  });
  return buildMultiturnReport({ mode: 'replay', outcomes, totalTurns: ds.size, requests, tools: null });
}
