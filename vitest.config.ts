import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Child processes rather than worker threads: the native addon starts
    // threads of its own, and a crash in it ends one fork, not the runner.
    pool: 'forks',
    // Slow CI machines (2 cores): generous limits, and no retry, so a flaky
    // test shows up as a failure.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 60_000,
    retry: 0,
  },
});
