// Submitting the one heterogeneous batch job of `mode: sbatch-het` entries
// and holding it: sbatch (argv, no shell), then `scontrol -o show job` until
// every component runs (at most the timeout), then each component's node and
// address. The job is cancelled (scancel) if anything fails, and at process
// exit unless `release` ran first. The servers run inside the job, not here:
// each has a local watcher process (WATCH_STEP) that ends with the step's exit
// code once the batch script writes it, so crashes are seen as for any server.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { EndpointFailure } from '../core/errors.js';
import { registerExitCleanup } from './launcher.js';
import type { SlurmAllocation } from './slurm.js';
import { expandNodes, run, scancelNow } from './slurm.js';
import { type HetComponent, hetBatchScript, hetComponents, parsableJobId, sbatchArgv } from './slurm-het.js';

/**
 * The watcher's program (`node -e`; the exit file and the job id as its
 * arguments): it polls the file the batch script writes when the step ends
 * and exits with that code. A job gone from squeue without it (time limit,
 * a node lost, an outside scancel) ends it with 1 and a line in the log.
 * SIGTERM (the fleet stopping it) ends it at once.
 */
export const WATCH_STEP = [
  "const fs = require('node:fs');",
  "const { execFileSync } = require('node:child_process');",
  'const [f, job] = process.argv.slice(1);',
  "process.on('SIGTERM', () => process.exit(143));",
  'let n = 0;',
  'setInterval(() => {',
  "  let t = '';",
  "  try { t = fs.readFileSync(f, 'utf8').trim(); } catch {}",
  "  if (t !== '') process.exit(Number.isInteger(Number(t)) ? Number(t) : 1);",
  '  if (++n % 8 !== 0) return;',
  "  let state = '';",
  "  try { state = execFileSync('squeue', ['-h', '-j', job, '-o', '%T'], { timeout: 10000, stdio: 'pipe' }).toString().trim(); }",
  // Purged from the controller: squeue says the id is invalid. Any other failure: ask again later.
  '  catch (e) { if (!/Invalid job id/i.test(String(e.stderr))) return; }',
  "  if (state === '') {",
  "    try { t = fs.readFileSync(f, 'utf8').trim(); } catch {}",
  "    if (t !== '') process.exit(Number.isInteger(Number(t)) ? Number(t) : 1);",
  "    process.stderr.write('loadgen: Slurm job ' + job + ' ended before this server\\'s step did\\n');",
  '    process.exit(1);',
  '  }',
  '}, 250);',
].join('\n');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const ENDED = /^(FAILED|CANCELLED|TIMEOUT|COMPLETED|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)/;

export interface HetJob {
  jobId: string;
  /** Per component, in order: the allocation its servers are planned on (job id `ID+K`; `ID` when there is one component, a plain batch job). */
  allocations: SlurmAllocation[];
  release: () => boolean;
}

/** Submits the job (script written to `dir`), waits until every component runs; throws EndpointFailure otherwise. */
export async function submitHet(
  components: readonly HetComponent[],
  dir: string,
  timeoutS: number,
  log: (m: string) => void,
): Promise<HetJob> {
  mkdirSync(dir, { recursive: true });
  // The script holds the servers' env, secrets included: owner-only, and gone
  // once sbatch has read it (Slurm keeps its own copy with the job).
  const script = join(dir, 'loadgen-het.sh');
  writeFileSync(script, hetBatchScript(components), { mode: 0o700 });
  const argv = sbatchArgv('loadgen', components, script, join(dir, 'loadgen-het.batch.log'));
  log(`slurm: ${argv.join(' ')}`);
  let jobId: string | null = null;
  let cancelled = false;
  const cancel = (): boolean => {
    if (cancelled || jobId === null) return cancelled;
    cancelled = scancelNow(jobId);
    return cancelled;
  };
  const unregister = registerExitCleanup(() => {
    cancel();
  });
  try {
    let out: string;
    try {
      out = await run(argv[0]!, argv.slice(1)).finally(() => rmSync(script, { force: true }));
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw new Error(
        err.code === 'ENOENT'
          ? 'sbatch: command not found (is this a Slurm login node?)'
          : `sbatch failed: ${err.message}`,
      );
    }
    jobId = parsableJobId(out);
    if (jobId === null) throw new Error(`sbatch printed no job id: ${out.trim() || 'nothing'}`);
    const deadline = Date.now() + timeoutS * 1000;
    let comps = hetComponents('');
    for (;;) {
      comps = hetComponents(await run('scontrol', ['-o', 'show', 'job', jobId]));
      const ended = comps.find((c) => ENDED.test(c.state));
      if (ended) throw new Error(`job ${jobId}+${ended.offset} ended before its servers ran: ${ended.state}`);
      if (comps.length === components.length && comps.every((c) => c.state === 'RUNNING')) break;
      if (Date.now() >= deadline) {
        const waiting = comps.find((c) => c.state !== 'RUNNING');
        throw new Error(
          `no allocation within ${timeoutS} s (job ${jobId} still ${waiting?.state ?? 'unknown'}, reason ${waiting?.reason || 'none'})`,
        );
      }
      await sleep(500);
    }
    const allocations: SlurmAllocation[] = [];
    for (const c of comps) {
      const found = await expandNodes(c.nodeList);
      const id = components.length > 1 ? `${jobId}+${c.offset}` : jobId;
      allocations.push({ jobId: id, ...found, partition: c.partition || null });
    }
    log(`slurm job ${jobId}: ${allocations.map((a) => `${a.jobId} on ${a.nodes.join(', ')}`).join('; ')}`);
    return {
      jobId,
      allocations,
      release: () => {
        unregister();
        return cancel();
      },
    };
  } catch (e) {
    unregister();
    cancel();
    throw new EndpointFailure(`slurm heterogeneous job: ${(e as Error).message}`);
  }
}
