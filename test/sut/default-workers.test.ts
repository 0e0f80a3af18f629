import { expect, test } from 'vitest';

import { defaultWorkers } from '../../lib/sut/llm-sut.js';

test('default worker threads: CPU count − 1 within 1..8, two on a 2-CPU machine', () => {
  expect([1, 2, 3, 4, 5, 8, 9, 16, 64].map(defaultWorkers)).toEqual([1, 2, 2, 3, 4, 7, 8, 8, 8]);
});
