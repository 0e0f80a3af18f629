import { describe, expect, test } from 'vitest';

import { requestIdString } from '../../lib/sut/request-id.js';

describe('requestIdString', () => {
  test('the decimal string of every id, across thousands and back', () => {
    const ids = [
      0,
      1,
      9,
      999,
      1000,
      1001,
      1999,
      2000,
      10_007,
      4_294_967_296,
      4_294_967_296 + 999,
      4_294_967_296 + 1000,
      2 ** 53 - 1,
    ];
    for (let i = 0; i < 5000; i++) ids.push(8_589_934_592 + i * 7);
    ids.push(1500, 4_294_968_001, 1500); // the cached high digits change and change back
    for (const id of ids) expect(requestIdString(id)).toBe(String(id));
  });

  test('what is not a safe integer goes through String()', () => {
    expect(requestIdString(1.5)).toBe('1.5');
    expect(requestIdString(2 ** 60)).toBe(String(2 ** 60));
    expect(requestIdString(-1234)).toBe('-1234');
  });
});
