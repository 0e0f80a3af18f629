// Both execution styles against the simulator: replay (a turn is a sample,
// history from the recording) and live (a conversation is a sample, history
// from the model's answers), tool calls, a malformed call, and a server
// failing mid-conversation. Bounded runs; no timing assertions beyond the
// think-time floor a sleep guarantees.
import { afterAll, describe, expect, it } from 'vitest';

import { TestScenario } from '../../lib/index.js';
import { createLiveSut, type LiveSut } from '../../lib/multiturn/live-sut.js';
import { readConversations } from '../../lib/multiturn/read.js';
import { replayDataset } from '../../lib/multiturn/replay.js';
import { replayReport } from '../../lib/multiturn/report.js';
import type { SimRequestRecord } from '../../lib/sim/types.js';
import { createLlmSut } from '../../lib/sut/llm-sut.js';
import { accuracyRun, serverRun, sim, track } from '../sut/helpers.js';
import { fixture } from './helpers.js';

const lives: LiveSut[] = [];
afterAll(async () => {
  await Promise.all(lives.splice(0).map((l) => l.close()));
});

type Msg = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string };
const messagesOf = (r: SimRequestRecord): Msg[] => (r.body as { messages: Msg[] }).messages;
const chatRecords = (recs: SimRequestRecord[]) => recs.filter((r) => r.path === '/v1/chat/completions');

async function live(
  url: string,
  file: string,
  extra: Partial<Parameters<typeof createLiveSut>[0]> = {},
): Promise<LiveSut> {
  const sut = await createLiveSut({
    endpoints: [url],
    conversations: await readConversations(fixture(file)),
    sampling: { maxTokens: 6 },
    ...extra,
  });
  lives.push(sut);
  return sut;
}

describe('replay', () => {
  it('every turn is a sample whose prompt carries the recorded history', async () => {
    const s = await sim({ decodeStepNs: 200_000 });
    const convs = await readConversations(fixture('chat.jsonl'));
    const ds = replayDataset(convs, { maxTokens: 4 });
    expect(ds.size).toBe(5);
    const llm = track(
      await createLlmSut({ endpoints: [s.url], dataset: ds, api: 'chat', workers: 0, recordTimings: true }),
    );
    const { result } = await accuracyRun(llm, TestScenario.Offline);
    expect(result.accuracyLogEntries).toBe(5);
    // Without the probe's test request.
    const recs = chatRecords(s.records()).filter((r) => r.status === 200 && messagesOf(r)[0]!.content !== 'Say hello.');
    expect(recs).toHaveLength(5);
    // The third turn of 'trip': system, two recorded exchanges, then its question.
    const third = recs.map(messagesOf).find((m) => m.at(-1)!.content === 'And which districts to stay in?')!;
    expect(third.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(third[2]!.content).toBe('Spring is a fine time for Lisbon.');
    expect(third[4]!.content).toBe('Light layers and comfortable shoes.');
    const report = replayReport(ds, (await llm.report()).timings);
    expect(report.sample).toBe('turn');
    expect(report.turns).toEqual({ total: 5, completed: 5, failed: 0 });
    expect(report.perTurn.map((t) => [t.turn, t.requests])).toEqual([
      [0, 2],
      [1, 2],
      [2, 1],
    ]);
    expect(report.conversations.completed).toBe(2);
  });

  it('recorded tool calls and results are part of the replayed history, and tools are offered', async () => {
    const s = await sim();
    const ds = replayDataset(await readConversations(fixture('tools.jsonl')), { maxTokens: 4 });
    const second = ds.prompt(1);
    expect((second.messages as Msg[]).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect((second.messages as Msg[])[2]!.content).toBe('{"forecast":"sunny","high_c":21}');
    const llm = track(await createLlmSut({ endpoints: [s.url], dataset: ds, api: 'chat', workers: 0 }));
    await accuracyRun(llm, TestScenario.Offline);
    const turns = chatRecords(s.records()).filter(
      (x) => x.status === 200 && messagesOf(x)[0]!.content !== 'Say hello.',
    );
    expect(turns).toHaveLength(2);
    for (const r of turns) expect((r.body as { tools: unknown[] }).tools).toHaveLength(2);
  });
});

describe('live', () => {
  it('Offline: turns in order per conversation, think time honoured, history from the model, prefix-cache hits', async () => {
    const s = await sim({
      decodeStepNs: 200_000,
      prefillNsPerToken: 10_000,
      prefixCache: true,
      prefixCacheBlockTokens: 4,
    });
    const sut = await live(s.url, 'chat.jsonl');
    const { result } = await accuracyRun(sut, TestScenario.Offline);
    expect(result.accuracyLogEntries).toBe(2);
    const log = sut.requestLog();
    for (const id of ['trip', 'code']) {
      const mine = log.filter((x) => x.conversation === id);
      expect(mine.map((x) => x.turn)).toEqual(id === 'trip' ? [0, 1, 2] : [0, 1]);
      for (let k = 1; k < mine.length; k++) {
        const think = id === 'trip' ? 30 : 20;
        // The next turn waits for the previous one and its think time.
        expect(mine[k]!.sentNs - mine[k - 1]!.endNs).toBeGreaterThanOrEqual((think - 2) * 1e6);
      }
    }
    const recs = chatRecords(s.records());
    const tripLast = recs.map(messagesOf).find((m) => m.at(-1)!.content === 'And which districts to stay in?')!;
    // Live history holds the simulator's own answers, never the recorded ones.
    expect(tripLast.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(tripLast[2]!.content).toMatch(/^( t\d+)+$/);
    expect(JSON.stringify(tripLast)).not.toContain('Spring is a fine time');
    // Later turns find the earlier prompt in the cache: less to prefill.
    const tripRecs = recs.filter((r) => messagesOf(r)[0]!.content === 'You are a travel assistant.');
    expect(tripRecs[0]!.cachedTokens).toBe(0);
    for (const r of tripRecs.slice(1)) {
      expect(r.cachedTokens).toBeGreaterThan(0);
      expect(r.promptTokens - r.cachedTokens!).toBeLessThan(r.promptTokens);
    }
    const mt = sut.multiturnReport();
    expect(mt.sample).toBe('conversation');
    expect(mt.conversations).toEqual({ total: 2, completed: 2, failed: 0 });
    expect(mt.turns).toEqual({ total: 5, completed: 5, failed: 0 });
    expect(mt.perTurn.map((t) => t.turn)).toEqual([0, 1, 2]);
    for (const t of mt.perTurn) {
      expect(t.ttftMs.count).toBe(t.requests);
      expect(t.tpotMs.count).toBe(t.requests);
      expect(t.promptTokensMean).toBeGreaterThan(0);
    }
    expect(mt.perTurn[2]!.promptTokensMean!).toBeGreaterThan(mt.perTurn[0]!.promptTokensMean!);
    expect(mt.conversationLatencyMs!.count).toBe(2);
    expect(mt.tools).toBeNull();
  });

  it('Server: Poisson arrivals of conversations; LoadGen sees a first token and the completion of each', async () => {
    const s = await sim({ decodeStepNs: 200_000 });
    const sut = await live(s.url, 'chat.jsonl', { thinkTimeScale: 0 });
    const { result } = await serverRun(sut, 4, { serverTargetQps: 50 });
    expect(result.counts.samples).toBe(4);
    expect(result.errors.missingFirstTokens).toBe(0);
    expect(result.ttft).not.toBeNull();
    const report = await sut.report();
    expect(report.samples).toMatchObject({ issued: 4, completed: 4, failed: 0 });
    expect(report.timings).toHaveLength(4);
    const mt = sut.multiturnReport();
    expect(mt.conversations.total).toBe(4);
    expect(mt.conversationLatencyMs!.count).toBe(4);
  });

  it('tool calls are answered from the recorded results and the turn goes on; arguments scored', async () => {
    for (const flavor of ['vllm', 'sglang'] as const) {
      const s = await sim({ flavor });
      const sut = await live(s.url, 'tools.jsonl');
      await accuracyRun(sut, TestScenario.Offline);
      const recs = chatRecords(s.records());
      expect(recs).toHaveLength(4);
      expect(recs.map((r) => r.toolCall ?? null)).toEqual(['get_weather', null, 'get_time', null]);
      const afterCall = messagesOf(recs[1]!);
      expect(afterCall.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
      expect(afterCall[1]!.tool_calls).toHaveLength(1);
      expect(afterCall[2]!.content).toBe('{"forecast":"sunny","high_c":21}');
      expect(messagesOf(recs[3]!).at(-1)).toMatchObject({ role: 'tool', content: '14:05' });
      const mt = sut.multiturnReport();
      expect(mt.conversations.completed).toBe(1);
      // Turn 1 expected zone UTC; the user asked for CET, so the model's call does not match.
      expect(mt.tools).toEqual({
        requestsWithTools: 4,
        responsesWithToolCalls: 2,
        toolCallRate: 0.5,
        toolCalls: 2,
        malformed: 0,
        expected: 2,
        matched: 1,
        argumentAccuracy: 0.5,
      });
    }
  });

  it('a malformed tool call is counted; the harness answers with an error and the conversation goes on', async () => {
    const s = await sim({
      faults: [{ kind: 'malformed-tool-call', count: 1, match: { path: '/v1/chat/completions' } }],
    });
    const sut = await live(s.url, 'tools.jsonl');
    await accuracyRun(sut, TestScenario.Offline);
    const mt = sut.multiturnReport();
    expect(mt.tools!.malformed).toBe(1);
    expect(mt.tools!.matched).toBe(0);
    expect(mt.conversations.completed).toBe(1);
    const recs = chatRecords(s.records());
    expect(messagesOf(recs[1]!).at(-1)!.content).toMatch(/not valid JSON/);
  });

  it('a server failing mid-conversation: that conversation is failed, the run goes on and completes the others', async () => {
    // The second chat request (with one conversation at a time: the first conversation's turn 1) gets a 500.
    const s = await sim({
      faults: [{ kind: 'status', status: 500, count: 1, match: { path: '/v1/chat/completions', every: 2 } }],
    });
    const sut = await live(s.url, 'chat.jsonl', { maxConcurrentConversations: 1, thinkTimeScale: 0 });
    const { result } = await accuracyRun(sut, TestScenario.Offline);
    expect(result.accuracyLogEntries).toBe(2);
    const mt = sut.multiturnReport();
    expect(mt.conversations).toEqual({ total: 2, completed: 1, failed: 1 });
    const failed = mt.outcomes[0]!;
    expect(failed).toMatchObject({ ok: false, failedTurn: 1, turnsCompleted: 1 });
    expect(failed.error).toMatch(/HTTP 500/);
    const ok = mt.outcomes[1]!;
    expect(ok.ok).toBe(true);
    expect(ok.turnsCompleted).toBe(ok.turns);
    // One conversation at a time: the second starts after the first ended.
    const log = sut.requestLog();
    const first = log.filter((x) => x.conversation === log[0]!.conversation);
    const second = log.filter((x) => x.conversation !== log[0]!.conversation);
    expect(second[0]!.sentNs).toBeGreaterThanOrEqual(first.at(-1)!.endNs);
    const report = await sut.report();
    expect(report.samples).toMatchObject({ completed: 2, failed: 1 });
    expect(report.errorKinds).toEqual({ http_500: 1 });
  });
});
