// report.html's "Conversations" section for multi-turn runs: the counts,
// per-turn TTFT/TPOT/latency, per-conversation latency, tool-call figures,
// and the failed conversations with the turn and the error.
import type { MultiturnReport } from '../multiturn/types.js';
import type { Percentiles } from '../sut/types.js';
import { esc, fmtInt, fmtMs, fmtNum, fmtPct, table } from './html-text.js';

const p50p99 = (p: Percentiles | null | undefined): [string, string] => [fmtMs(p?.p50), fmtMs(p?.p99)];

export function multiturnSection(m: MultiturnReport): string {
  const what =
    m.mode === 'live'
      ? "Live: one sample is a conversation, its history built from the model's answers; latency runs from LoadGen's issue to the last token of the last turn."
      : 'Replay: one sample is a turn whose prompt carries the recorded history.';
  const counts = table(
    ['', 'total', 'completed', 'failed'],
    [
      [
        'conversations',
        fmtInt(m.conversations.total),
        fmtInt(m.conversations.completed),
        fmtInt(m.conversations.failed),
      ],
      ['turns', fmtInt(m.turns.total), fmtInt(m.turns.completed), fmtInt(m.turns.failed)],
    ],
  );
  const perTurn = table(
    [
      'turn',
      'requests',
      'failed',
      'TTFT p50',
      'TTFT p99',
      'TPOT p50',
      'TPOT p99',
      'latency p50',
      'latency p99',
      'prompt tokens (mean)',
    ],
    m.perTurn.map((t) => [
      String(t.turn + 1),
      fmtInt(t.requests),
      fmtInt(t.failed),
      ...p50p99(t.ttftMs),
      ...p50p99(t.tpotMs),
      ...p50p99(t.latencyMs),
      fmtNum(t.promptTokensMean),
    ]),
  );
  let conv = '';
  if (m.conversationLatencyMs) {
    const c = m.conversationLatencyMs;
    conv = table(
      ['conversation latency', 'count', 'mean', 'p50', 'p90', 'p99', 'max'],
      [
        [
          'completed conversations',
          fmtInt(c.count),
          fmtMs(c.mean),
          fmtMs(c.p50),
          fmtMs(c.p90),
          fmtMs(c.p99),
          fmtMs(c.max),
        ],
      ],
    );
  }
  let tools = '';
  if (m.tools) {
    const t = m.tools;
    tools = table(
      ['tool use', ''],
      [
        ['requests offering tools', fmtInt(t.requestsWithTools)],
        ['responses calling tools', `${fmtInt(t.responsesWithToolCalls)} (${fmtPct(t.toolCallRate)})`],
        ['tool calls', fmtInt(t.toolCalls)],
        ['malformed calls', fmtInt(t.malformed)],
        [
          'expected calls matched (AST)',
          `${fmtInt(t.matched)} of ${fmtInt(t.expected)} (${fmtPct(t.argumentAccuracy)})`,
        ],
      ],
    );
  }
  const failed = m.outcomes.filter((o) => !o.ok);
  const failures = failed.length
    ? table(
        ['failed conversation', 'turn', 'turns done', 'error'],
        failed
          .slice(0, 50)
          .map((o) => [
            o.id,
            o.failedTurn === undefined ? '—' : String(o.failedTurn + 1),
            `${o.turnsCompleted} of ${o.turns}`,
            o.error ?? '',
          ]),
      )
    : '';
  return `<p class="note">${esc(what)}</p>${counts}<h3>Per turn</h3>${perTurn}${conv}${tools}${failures}`;
}
