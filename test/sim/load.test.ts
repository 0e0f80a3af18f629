// Thousands of concurrent streams: all complete, in bounded time, with the
// batch limit respected.
import { execFileSync } from 'node:child_process';
import { Agent } from 'node:http';

import { expect, test } from 'vitest';

import { startSimulator } from '../../lib/sim/index.js';
import { post, sseData, tokenIdChunks } from './helpers.js';

const STREAMS = 2000;
const TOKENS = 16;

// Each stream holds two file descriptors here (client and server side).
function fdLimit(): number {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim()) || 0;
  } catch {
    return 0;
  }
}

test.skipIf(fdLimit() < 2 * STREAMS + 200)(`${STREAMS} concurrent streams complete in bounded time`, async () => {
  const sim = await startSimulator({ maxRunningSeqs: 256, decodeStepNs: 1_000_000 });
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  try {
    let maxRunning = 0;
    const sampler = setInterval(() => (maxRunning = Math.max(maxRunning, sim.stats().running)), 5);
    const t0 = Date.now();
    const results = await Promise.all(
      Array.from({ length: STREAMS }, (_, i) =>
        post(
          sim.url,
          '/v1/completions',
          { prompt: [i + 1, 7], max_tokens: TOKENS, stream: true, return_token_ids: true },
          { agent, timeoutMs: 45_000 },
        ),
      ),
    );
    const elapsed = Date.now() - t0;
    clearInterval(sampler);
    for (const r of results) {
      expect(r.error).toBeNull();
      expect(r.status).toBe(200);
      expect(tokenIdChunks(r.body).flat()).toHaveLength(TOKENS);
      expect(sseData(r.body).at(-1)).toBe('[DONE]');
    }
    expect(elapsed).toBeLessThan(40_000);
    expect(maxRunning).toBeLessThanOrEqual(256);
    expect(sim.stats()).toMatchObject({
      running: 0,
      waiting: 0,
      totalRequests: STREAMS,
      totalTokens: STREAMS * TOKENS,
    });
    expect(sim.records()).toHaveLength(STREAMS);
  } finally {
    agent.destroy();
    await sim.close();
  }
});
