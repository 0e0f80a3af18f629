import { describe, expect, test } from 'vitest';

import { CLOSED, HALF_OPEN, OPEN, ROUTE_FULL, ROUTE_UNHEALTHY, Router } from '../../lib/sut/routing.js';

describe('Router', () => {
  test('least outstanding requests, per unit of weight', () => {
    const r = Router.create(
      [
        { weight: 1, maxInFlight: 0 },
        { weight: 3, maxInFlight: 0 },
      ],
      5,
      1000,
    );
    const counts = [0, 0];
    for (let i = 0; i < 400; i++) counts[r.acquire()]++;
    expect(counts[0]).toBe(100);
    expect(counts[1]).toBe(300);
    expect(r.outstanding(0)).toBe(100);
    r.release(0);
    expect(r.outstanding(0)).toBe(99);
  });

  test('in-flight caps: full when every endpoint is at its cap', () => {
    const r = Router.create(
      [
        { weight: 1, maxInFlight: 2 },
        { weight: 1, maxInFlight: 1 },
      ],
      5,
      1000,
    );
    expect([r.acquire(), r.acquire(), r.acquire()].sort()).toEqual([0, 0, 1]);
    expect(r.acquire()).toBe(ROUTE_FULL);
    r.release(1);
    expect(r.acquire()).toBe(1);
  });

  test('avoid: a just-failed endpoint is used only when nothing else can take it', () => {
    const r = Router.create(
      [
        { weight: 1, maxInFlight: 0 },
        { weight: 1, maxInFlight: 0 },
      ],
      5,
      1000,
    );
    r.acquire();
    r.acquire();
    r.acquire(); // 0 has 2, 1 has 1
    expect(r.acquire(1)).toBe(0);
  });

  test('circuit breaker: opens after K consecutive failures, half-opens after the cooldown, closes on success', async () => {
    const r = Router.create(
      [
        { weight: 1, maxInFlight: 0 },
        { weight: 1, maxInFlight: 0 },
      ],
      3,
      50,
    );
    r.failure(0);
    r.failure(0);
    r.success(0); // resets the consecutive count
    r.failure(0);
    r.failure(0);
    expect(r.state(0)).toBe(CLOSED);
    expect(r.failure(0)).toBe(true);
    expect(r.state(0)).toBe(OPEN);
    expect(r.timesOpened(0)).toBe(1);
    for (let i = 0; i < 5; i++) expect(r.acquire()).toBe(1);
    await new Promise((res) => setTimeout(res, 60));
    expect(r.acquire()).toBe(0); // the half-open probe
    expect(r.state(0)).toBe(HALF_OPEN);
    expect(r.acquire()).toBe(1); // one probe at a time
    r.failure(0); // the probe failed: open again
    expect(r.state(0)).toBe(OPEN);
    expect(r.timesOpened(0)).toBe(2);
    await new Promise((res) => setTimeout(res, 60));
    expect(r.acquire()).toBe(0);
    r.success(0);
    expect(r.state(0)).toBe(CLOSED);
  });

  test('unhealthy when every circuit is open', () => {
    const r = Router.create([{ weight: 1, maxInFlight: 0 }], 1, 10_000);
    r.failure(0);
    expect(r.acquire()).toBe(ROUTE_UNHEALTHY);
    expect(r.msUntilProbe()).toBeGreaterThan(9000);
  });

  test('how long no circuit has been closed: from when the last one opened, through failed probes, until a success', () => {
    const r = Router.create(
      [
        { weight: 1, maxInFlight: 0 },
        { weight: 1, maxInFlight: 0 },
      ],
      1,
      0,
    );
    expect(r.noneHealthyForMs()).toBe(0);
    r.failure(0);
    expect(r.noneHealthyForMs()).toBe(0); // endpoint 1 is still closed
    const before = Date.now();
    r.failure(1);
    const t = Date.now();
    expect(r.noneHealthyForMs(t + 1000)).toBeGreaterThanOrEqual(1000);
    expect(r.noneHealthyForMs(t + 1000)).toBeLessThanOrEqual(1000 + t - before);
    // A failed half-open probe keeps the first time.
    expect(r.acquire()).toBe(0);
    expect(r.state(0)).toBe(HALF_OPEN);
    r.failure(0);
    expect(r.noneHealthyForMs(t + 1000)).toBeGreaterThanOrEqual(1000);
    // Any success closes a circuit and ends it; seen from another thread's Router too.
    const other = new Router(r.shared);
    expect(other.noneHealthyForMs(t + 1000)).toBeGreaterThanOrEqual(1000);
    r.success(1);
    expect(other.noneHealthyForMs(t + 5000)).toBe(0);
  });
});
