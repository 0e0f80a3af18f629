// vLLM's configuration lines read back from its start-up log.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, expect, test } from 'vitest';

import { configFromLog } from '../../lib/fleet/log-config.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('non-default args and the engine config line, verbatim', () => {
  const p = join(dir, 'vllm.log');
  writeFileSync(
    p,
    [
      "INFO 09-03 16:28:10 [utils.py:328] non-default args: {'model': '/models/x', 'tensor_parallel_size': 2}",
      "(EngineCore_DP0 pid=7) INFO 09-03 16:28:23 [core.py:75] Initializing a V1 LLM engine (v0.10.2) with config: model='/models/x', tensor_parallel_size=2, max_seq_len=32768",
      'INFO:     Application startup complete.',
    ].join('\n'),
  );
  expect(configFromLog(p)).toEqual({
    nonDefaultArgs: "{'model': '/models/x', 'tensor_parallel_size': 2}",
    engineConfig: "model='/models/x', tensor_parallel_size=2, max_seq_len=32768",
  });
  expect(configFromLog(join(dir, 'missing.log'))).toEqual({ nonDefaultArgs: null, engineConfig: null });
});
