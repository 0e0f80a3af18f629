// `loadgen run --conversations` end to end through node dist/cli.js (built
// by `npm run build:ts`), against the built-in simulator: replay and live
// (with a tool handler), what results.json and report.html show, and the
// usage errors of the multi-turn flags.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fixture, tempDir } from './helpers.js';

const REPO = resolve(__dirname, '..', '..');
const CLI = join(REPO, 'dist', 'cli.js');
const tmp = tempDir();
afterAll(() => tmp.cleanup());

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; retries while another build has emptied dist/ (tsup does that while it builds). */
function run(args: string[]): Ran {
  for (let attempt = 0; ; attempt++) {
    const r = spawnSync(process.execPath, [CLI, 'run', ...args], {
      cwd: tmp.dir,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, LOADGEN_DEBUG: '' },
    });
    const missing = !existsSync(CLI) || /Cannot find module|ERR_MODULE_NOT_FOUND/.test(r.stderr ?? '');
    if (!missing || attempt >= 20) return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    spawnSync('sleep', ['1']);
  }
}

const QUICK = ['--set', 'minDurationMs=0', '--quiet'];

beforeAll(() => {
  if (!existsSync(CLI)) {
    const b = spawnSync('npm', ['run', 'build:ts'], { cwd: REPO, encoding: 'utf8', timeout: 300_000 });
    if (b.status !== 0) throw new Error(`npm run build:ts failed: ${b.stderr}`);
  }
}, 300_000);

describe('loadgen run --conversations', () => {
  it('replay: one sample a turn; results.json and report.html show per-turn figures', () => {
    const out = tmp.file('replay');
    const r = run([
      '--scenario',
      'Offline',
      '--conversations',
      fixture('chat.jsonl'),
      '--multiturn',
      'replay',
      '--set',
      'minDurationMs=0',
      '--set',
      'minQueryCount=5',
      '--output-dir',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/conversations: .*chat\.jsonl: 2 conversations, 5 turns \(replay: one sample a turn\)/);
    expect(r.stdout).toMatch(/conversations \(replay\): 2 of 2 completed, 5 of 5 turns/);
    const j = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(j.benchmark.dataset).toMatchObject({ name: 'conversations (replay)', size: 5 });
    expect(j.harness.api).toBe('chat');
    expect(j.multiturn).toMatchObject({ mode: 'replay', sample: 'turn', conversationLatencyMs: null, tools: null });
    expect(j.multiturn.perTurn.map((t: { turn: number }) => t.turn)).toEqual([0, 1, 2]);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<h2>Conversations</h2>');
    expect(html).toContain('Replay: one sample is a turn');
  });

  it('live with a tool handler: one sample a conversation; tool figures and conversation latency', () => {
    const out = tmp.file('live');
    const handler = tmp.file('handler.mjs');
    writeFileSync(handler, 'export default (call) => ({ handled: call.name });\n');
    const r = run([
      '--scenario',
      'Server',
      '--target-qps',
      '20',
      '--conversations',
      fixture('tools.jsonl'),
      '--multiturn',
      'live',
      '--tool-handler',
      handler,
      '--max-concurrent-conversations',
      '2',
      ...QUICK,
      '--set',
      'minQueryCount=2',
      '--output-dir',
      out,
      '--json',
    ]);
    // Two queries cannot pass early stopping: INVALID (1) is the expected verdict.
    expect([0, 1]).toContain(r.code);
    const j = JSON.parse(r.stdout);
    expect(j.multiturn.mode).toBe('live');
    expect(j.multiturn.sample).toBe('conversation');
    expect(j.multiturn.conversations).toEqual({ total: 2, completed: 2, failed: 0 });
    expect(j.multiturn.tools).toMatchObject({
      toolCalls: 4,
      responsesWithToolCalls: 4,
      malformed: 0,
      expected: 4,
      matched: 2,
    });
    expect(j.multiturn.conversationLatencyMs.count).toBe(2);
    expect(j.multiturn.perTurn).toHaveLength(2);
    expect(j.errors.failedSamples).toBe(0);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('expected calls matched (AST)');
  });

  it('the flags work from a config file too', () => {
    const out = tmp.file('config');
    const config = tmp.file('run.yaml');
    writeFileSync(
      config,
      `scenario: Offline\nconversations: ${fixture('sharegpt.jsonl')}\nmultiturn: live\nmax-concurrent-conversations: 1\nset: [minDurationMs=0, minQueryCount=1]\nquiet: true\n`,
    );
    const r = run(['--config', config, '--output-dir', out]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(j.multiturn).toMatchObject({
      mode: 'live',
      conversations: { total: 1, completed: 1, failed: 0 },
      turns: { total: 2, completed: 2 },
    });
  });

  it('usage errors exit 2 and name what is wrong', () => {
    const cases: [string[], RegExp][] = [
      [['--multiturn', 'live'], /--multiturn needs --conversations/],
      [
        ['--conversations', fixture('chat.jsonl'), '--multiturn', 'both'],
        /--multiturn "both": expected replay or live/,
      ],
      [
        ['--conversations', fixture('chat.jsonl'), '--tool-results', 'x.json'],
        /--tool-results applies to --multiturn live/,
      ],
      [['--conversations', fixture('chat.jsonl'), '--api', 'completions'], /needs the chat API/],
      [
        ['--conversations', fixture('bad-turn.jsonl')],
        /bad-turn\.jsonl: line 2: turn 1: 'user' must be a non-empty string/,
      ],
      [['--conversations', fixture('chat.jsonl'), '--synthetic', '8/8'], /exclude each other/],
    ];
    for (const [args, re] of cases) {
      const r = run(['--scenario', 'Offline', ...args, '--output-dir', tmp.file('err'), '--quiet']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(re);
    }
  });
});
