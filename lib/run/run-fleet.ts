// `loadgen run` with a `servers:` section: the servers are started (and
// warmed up) first, the benchmark runs against them, and they are stopped
// afterwards whatever happened: success, failure or Ctrl-C (a second
// Ctrl-C exits at once; the launcher's exit hook still ends them). Their
// configuration, versions, logs and events go into the record.
import { UsageError } from '../core/errors.js';
import type { RunRecord } from '../results/run-record.js';
import type { RunBenchmarkOptions } from './run-benchmark.js';
import { createOutputDir } from './output-dir.js';

import { Fleet } from '../fleet/fleet.js';
import type { ServerSpec } from '../fleet/types.js';

export interface FleetRunOptions {
  /** Period of the loading progress lines (default 10 s). */
  progressEveryMs?: number;
}

/** Starts the servers, runs runBenchmark against them (plus any other endpoints), stops them; the record has `servers`. */
export async function runWithFleet(
  specs: readonly ServerSpec[],
  options: RunBenchmarkOptions,
  fo: FleetRunOptions = {},
): Promise<RunRecord> {
  if (options.simulator !== undefined)
    throw new UsageError(
      "'simulator' options are for the built-in simulator; with servers:, use backend: simulator and its simulator: map",
    );
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  // The servers' logs go into it (a pseudo filesystem or unwritable parent is refused here).
  const outdir = createOutputDir(options.outdir);
  const fleet = await Fleet.start(specs, {
    outdir,
    log,
    progressEveryMs: fo.progressEveryMs,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  });
  try {
    const { runBenchmark, writeRunFiles } = await import('./run-benchmark.js');
    const record = await runBenchmark({
      ...options,
      endpoints: [...(options.endpoints ?? []), ...fleet.endpoints()],
      writeOutputs: false,
    });
    await fleet.stop();
    record.servers = fleet.record();
    for (const e of record.servers.events)
      if (e.kind === 'crashed') log(`note: ${e.message} (recorded in results.json, servers.events)`);
    if (options.writeOutputs !== false) await writeRunFiles(record);
    return record;
  } finally {
    await fleet.stop();
  }
}
