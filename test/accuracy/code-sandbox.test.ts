// Generated programs run against their tests in the sandbox (code-sandbox.ts):
// right and wrong answers, and hostile programs, each bounded by
// construction (a loop of at most 300 spawns, a write of at most 100 MB), are
// contained and scored as failed or timed out; the temporary directory goes.
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { probeSandbox, runCodeJob, runCodeJobs, type CodeExecutionOptions } from '../../lib/accuracy/code-sandbox.js';

const sandbox = probeSandbox();
const LIMITS: CodeExecutionOptions = { testTimeoutSec: 2, memoryBytes: 512 * 1024 * 1024, workers: 2 };
const echoTests = [
  { input: '3\n1 2 3\n', output: '6\n' },
  { input: '2\n5 5\n', output: '10' },
];
const SUM = 'n = int(input())\nprint(sum(map(int, input().split())))\n';

const lgDirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith('lg-code-')).length;

describe.runIf(sandbox.sandboxed)('code execution in the sandbox', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a right program passes every test; a wrong one fails; a LeetCode-style method is called with JSON arguments', async () => {
    const before = lgDirs();
    const [ok, wrong, fn, floaty] = await runCodeJobs(
      [
        { code: SUM, tests: echoTests, mode: 'stdin' },
        { code: 'input()\nprint(41)\n', tests: echoTests, mode: 'stdin' },
        {
          code: 'class Solution:\n    def twoSum(self, a: List[int], t: int) -> List[int]:\n        return (0, 1)\n',
          tests: [{ input: '[2, 7]\n9', output: '[0, 1]' }],
          mode: 'functional',
          fnName: 'twoSum',
        },
        { code: 'print("1.50 2")', tests: [{ input: '', output: '1.5 2.0' }], mode: 'stdin' },
      ],
      LIMITS,
    );
    expect(ok).toMatchObject({ status: 'passed', testsPassed: 2 });
    expect(wrong).toMatchObject({ status: 'failed', testsPassed: 0 });
    expect(wrong!.detail).toMatch(/wrong answer/);
    expect(fn).toMatchObject({ status: 'passed', testsPassed: 1 });
    expect(floaty).toMatchObject({ status: 'passed' });
    expect(lgDirs()).toBe(before);
  });

  it('an infinite loop times out and is scored as such', async () => {
    const r = await runCodeJob(
      { code: 'while True:\n    pass\n', tests: echoTests, mode: 'stdin' },
      { ...LIMITS, testTimeoutSec: 1 },
    );
    expect(r.status).toBe('timeout');
  });

  it('a process-spawning loop (at most 300) hits the process limit and leaves no process behind', async () => {
    const marker = `lgspawn${process.pid}x${Date.now()}`;
    const code = [
      'import subprocess, sys',
      'kids = []',
      'for i in range(300):',
      `    kids.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(20) # ${marker}"]))`,
      'print(len(kids))',
    ].join('\n');
    const r = await runCodeJob(
      { code, tests: [{ input: '', output: '300' }], mode: 'stdin' },
      { ...LIMITS, maxProcesses: 32 },
    );
    expect(r.status).toBe('failed');
    const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout;
    expect(ps.includes(marker)).toBe(false);
  });

  it('a 1 GB allocation fails under the memory limit', async () => {
    const r = await runCodeJob(
      {
        code: 'b = bytearray(1 << 30)\nprint(len(b))\n',
        tests: [{ input: '', output: String(1 << 30) }],
        mode: 'stdin',
      },
      LIMITS,
    );
    expect(r.status).toBe('failed');
  });

  it('a network connection attempt fails: the server sees nothing', async () => {
    const code = `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=1)\nprint("connected")\n`;
    const r = await runCodeJob({ code, tests: [{ input: '', output: 'connected' }], mode: 'stdin' }, LIMITS);
    expect(r.status).toBe('failed');
    expect(connections).toBe(0);
  });

  it('a 100 MB write stops at the file-size limit; megabytes of output are capped; the directory goes', async () => {
    const before = lgDirs();
    const write =
      'with open("big", "wb") as f:\n    for i in range(100):\n        f.write(b"x" * (1 << 20))\nprint("done")\n';
    const print = 'import sys\nfor i in range(50):\n    sys.stdout.write("y" * (1 << 20))\nprint("done")\n';
    const [w, p] = await runCodeJobs(
      [
        { code: write, tests: [{ input: '', output: 'done' }], mode: 'stdin' },
        { code: print, tests: [{ input: '', output: 'done' }], mode: 'stdin' },
      ],
      LIMITS,
    );
    expect(w!.status).toBe('failed');
    expect(p!.status).toBe('failed');
    expect(lgDirs()).toBe(before);
  });
});

describe('without a sandbox', () => {
  it('the probe says whether the namespaces work here, with a reason when they do not', () => {
    expect(typeof sandbox.sandboxed).toBe('boolean');
    if (!sandbox.sandboxed) expect(sandbox.reason).toBeTruthy();
  });
});
