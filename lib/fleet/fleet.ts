// A fleet of servers through its life: plan, spawn (logs into
// <outdir>/servers/), wait for health, read versions, warm up, watch for
// crashes, stop. A failure anywhere while starting stops whatever was
// started before the error is passed on.
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { EndpointFailure, UsageError } from '../core/errors.js';
import { redactArgv, redactDeep, redactFile, redactText } from '../core/redact.js';
import type { EndpointConfig } from '../sut/types.js';
import { FleetStartError, waitHealthy, type Launched } from './health.js';
import { ServerProcess, SpawnError } from './launcher.js';
import { configFromLog } from './log-config.js';
import { logTail } from './log-tail.js';
import { planServers } from './plan.js';
import { readServerInfo, type ServerSelfReport } from './server-info.js';
import { allocate, type SlurmAllocation } from './slurm.js';
import type { HetComponent } from './slurm-het.js';
import { submitHet, WATCH_STEP } from './slurm-het-run.js';
import type { FleetEvent, FleetRecord, PlannedServer, ServerRecord, ServerSpec, SlurmJobRecord } from './types.js';
import { warmUp } from './warmup.js';
import { watchExits } from './watcher.js';

export interface FleetOptions {
  /** The run's output directory: logs go to <outdir>/servers/<name>.log. */
  outdir: string;
  /** Notes and progress (default: stderr). */
  log?: (message: string) => void;
  /** Period of the loading progress lines (default 10 s). */
  progressEveryMs?: number;
  /** The run's API key: sent as Bearer with the servers' info reads and warm-up requests, as the run sends it. */
  apiKey?: string;
}

/** Whether host:port can be listened on here (a server already there would answer our health checks). */
async function portFree(host: string, port: number): Promise<boolean> {
  const srv = createServer();
  return new Promise((resolve) => {
    srv.once('error', () => resolve(false));
    srv.listen(port, host === '0.0.0.0' || host === '::' ? undefined : host, () => srv.close(() => resolve(true)));
  });
}

/** A Slurm allocation the fleet holds until stop(). */
interface Held {
  spec: string;
  allocation: SlurmAllocation;
  release: () => boolean;
  cancelled: boolean;
}

export class Fleet {
  readonly events: FleetEvent[] = [];
  private readonly info = new Map<string, ServerSelfReport>();
  private readonly loadSeconds = new Map<string, number>();
  private unwatch: (() => void) | null = null;
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly planned: PlannedServer[],
    readonly launched: Launched[],
    private readonly log: (m: string) => void,
    private readonly jobs: Held[] = [],
  ) {}

  /**
   * Slurm allocations, one per `launcher: slurm` entry (salloc), then the one
   * heterogeneous batch job of the `mode: sbatch-het` entries (one component
   * each); whatever was granted is cancelled if one fails.
   */
  private static async allocateAll(
    specs: readonly ServerSpec[],
    log: (m: string) => void,
    outdir: string,
  ): Promise<Held[]> {
    const held: Held[] = [];
    try {
      const hetSpecs = specs.filter((s) => s.slurm?.mode === 'sbatch-het');
      for (const spec of specs) {
        if (!spec.slurm || hetSpecs.includes(spec)) continue;
        const timeoutS = spec.slurm.queueTimeoutS ?? spec.startupTimeoutS;
        const { allocation, release } = await allocate(`loadgen-${spec.name}`, spec.slurm, timeoutS, log);
        held.push({ spec: spec.name, allocation, release, cancelled: false });
      }
      if (hetSpecs.length > 0) {
        // The batch script holds the servers' command lines: planned now (names, ports, argv do not depend on the node).
        const planned = await planServers(hetSpecs);
        const dir = join(outdir, 'servers');
        const components: HetComponent[] = hetSpecs.map((spec) => ({
          options: spec.slurm!,
          servers: planned
            .filter((p) => p.spec === spec)
            .map((p) => {
              const exitPath = join(dir, `${p.name}.exit`);
              rmSync(exitPath, { force: true });
              return {
                name: p.name,
                argv: p.argv,
                env: p.env,
                logPath: join(dir, `${p.name}.log`),
                exitPath,
                relative: 0,
              };
            }),
        }));
        const timeoutS = Math.max(...hetSpecs.map((s) => s.slurm!.queueTimeoutS ?? s.startupTimeoutS));
        const job = await submitHet(components, dir, timeoutS, log);
        for (const [k, allocation] of job.allocations.entries())
          held.push({ spec: hetSpecs[k]!.name, allocation, release: job.release, cancelled: false });
      }
      return held;
    } catch (err) {
      for (const h of held) h.release();
      throw err;
    }
  }

  private event(server: string, kind: FleetEvent['kind'], message: string, extra: Partial<FleetEvent> = {}): void {
    this.events.push({ server, kind, at: new Date().toISOString(), message, ...extra });
  }

  /** Plans and starts every server, waits until all are healthy and warmed up. */
  static async start(specs: readonly ServerSpec[], o: FleetOptions): Promise<Fleet> {
    const given = o.log ?? ((m: string) => process.stderr.write(`${m}\n`));
    // Messages and log tails through the redaction rule (server logs can print their args).
    const log = (m: string): void => given(redactText(m, { pairs: true }));
    const jobs = await Fleet.allocateAll(specs, log, o.outdir);
    let planned: PlannedServer[];
    try {
      planned = await planServers(specs, new Map(jobs.map((j) => [j.spec, j.allocation])));
    } catch (err) {
      for (const j of jobs) j.release();
      throw err;
    }
    const names = new Set<string>();
    for (const p of planned) {
      if (names.has(p.name)) {
        for (const j of jobs) j.release();
        throw new UsageError(
          `servers: two servers are named '${p.name}' once expanded (GPU groups add -0, -1, ...; nodes add -<host>)`,
        );
      }
      names.add(p.name);
    }
    const fleet = new Fleet(planned, [], log, jobs);
    try {
      for (const server of planned) {
        const logPath = join(o.outdir, 'servers', `${server.name}.log`);
        if (!server.node && server.spec.port !== 'auto' && !(await portFree(server.spec.host, server.port))) {
          fleet.event(server.name, 'start-failed', `port ${server.port} is in use`);
          throw new EndpointFailure(
            `server ${server.name}: port ${server.port} on ${server.spec.host} is already in use (a server from an earlier run still up?); stop it or choose another port`,
          );
        }
        log(`server ${server.name}: ${server.commandLine}`);
        let proc: ServerProcess;
        try {
          proc = await ServerProcess.start(
            server.name,
            // sbatch-het: the step runs inside the batch job; here a watcher ends with its exit code.
            server.spec.slurm?.mode === 'sbatch-het'
              ? [
                  process.execPath,
                  '-e',
                  WATCH_STEP,
                  join(o.outdir, 'servers', `${server.name}.exit`),
                  server.jobId!.split('+')[0]!,
                ]
              : server.spawnArgv,
            // ssh carries the environment in its remote line; srun exports its own to the step.
            server.launcher === 'ssh' ? {} : server.env,
            logPath,
            server.spec.stopGraceS * 1000,
          );
        } catch (err) {
          if (err instanceof SpawnError) {
            fleet.event(server.name, 'start-failed', err.message);
            throw new EndpointFailure(`server ${server.name} could not be started: ${err.message}`);
          }
          throw err;
        }
        fleet.launched.push({ server, proc });
        fleet.event(server.name, 'started', `pid ${proc.pid}, log ${logPath}`);
        log(
          `server ${server.name}: pid ${proc.pid}, log ${logPath}, waiting for ${server.url}${server.spec.healthPath}`,
        );
      }
      try {
        const seconds = await waitHealthy(fleet.launched, {
          progressEveryMs: o.progressEveryMs,
          onProgress: log,
          onHealthy: (name, s) => {
            fleet.event(name, 'healthy', `healthy after ${s.toFixed(1)} s`);
            log(`server ${name}: healthy after ${s.toFixed(1)} s`);
          },
        });
        for (const [k, v] of seconds) fleet.loadSeconds.set(k, v);
      } catch (err) {
        if (err instanceof FleetStartError) {
          fleet.event(err.server, err.kind, err.message.split('\n')[0], { logTail: err.logTail });
          throw new EndpointFailure(redactText(err.message, { pairs: true }));
        }
        throw err;
      }
      fleet.watch();
      await Promise.all(
        fleet.launched.map(async ({ server }) => {
          const auth: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
          const info = await readServerInfo(server.url, auth);
          fleet.info.set(server.name, info);
          const n = server.spec.warmupRequests;
          if (n === 0) return;
          const model = info.modelId ?? server.spec.engineArgs.servedModelName ?? server.spec.model ?? 'default';
          const w = await warmUp(server.url, model, n, auth);
          fleet.event(
            server.name,
            'warmed-up',
            `${w.ok}/${w.sent} warm-up requests answered${w.error ? ` (${w.error})` : ''}`,
          );
          if (w.ok < w.sent)
            log(`warning: server ${server.name}: ${w.sent - w.ok} of ${w.sent} warm-up requests failed: ${w.error}`);
        }),
      );
      log(
        `servers ready: ${fleet.planned.map((p) => `${p.name} ${p.url}${fleet.info.get(p.name)?.version ? ` (version ${fleet.info.get(p.name)!.version})` : ''}`).join(', ')}`,
      );
      return fleet;
    } catch (err) {
      await fleet.stop();
      throw err;
    }
  }

  /** Reports servers that exit on their own (from now until stop()). */
  watch(): void {
    this.unwatch ??= watchExits(this.launched, (e, report) => {
      this.events.push(e);
      this.log(`warning: ${report}`);
    });
  }

  /** The adapter's endpoints, one per server, in start order. */
  endpoints(): EndpointConfig[] {
    return this.planned.map((p) => ({
      url: p.url,
      ...(p.spec.weight !== undefined ? { weight: p.spec.weight } : {}),
      ...(p.spec.maxInFlight !== undefined ? { maxInFlight: p.spec.maxInFlight } : {}),
    }));
  }

  /** Servers still running (not crashed). */
  alive(): PlannedServer[] {
    return this.launched.filter((l) => l.proc.running).map((l) => l.server);
  }

  /** Stops every server (SIGTERM, SIGKILL after its grace), in parallel; safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.unwatch?.();
      const running = this.launched.filter((l) => l.proc.running);
      if (running.length) this.log(`stopping ${running.map((l) => l.server.name).join(', ')}`);
      await Promise.all(
        this.launched.map(async ({ server, proc }) => {
          const wasRunning = proc.running;
          const exit = await proc.stop();
          if (!wasRunning) return;
          if (proc.killed)
            this.event(server.name, 'killed', `did not stop within ${server.spec.stopGraceS} s of SIGTERM: SIGKILL`, {
              exitCode: exit.code,
              signal: exit.signal,
            });
          else
            this.event(server.name, 'stopped', `stopped (${exit.signal ?? `code ${exit.code}`})`, {
              exitCode: exit.code,
              signal: exit.signal,
            });
        }),
      );
      for (const j of this.jobs) {
        j.cancelled = j.release();
        this.log(`slurm job ${j.allocation.jobId}: ${j.cancelled ? 'cancelled (scancel)' : 'scancel failed'}`);
      }
      // The servers wrote their logs themselves: secrets they printed (their args, a token) are masked now.
      for (const { proc } of this.launched) redactFile(proc.logPath, (m) => this.log(m));
    })();
    return this.stopping;
  }

  /** What results.json records about the servers. */
  record(): FleetRecord {
    const servers: ServerRecord[] = this.planned.map((p) => {
      const l = this.launched.find((x) => x.server === p);
      const info = this.info.get(p.name);
      const exit = l?.proc.exit ?? null;
      const crashed = this.events.some((e) => e.server === p.name && e.kind === 'crashed');
      return {
        name: p.name,
        backend: p.spec.backend,
        model: p.spec.model ?? null,
        url: p.url,
        node: p.node,
        launcher: p.launcher,
        jobId: p.jobId ?? null,
        gpus: p.gpus,
        port: p.port,
        pid: l?.proc.pid ?? null,
        commandLine: p.commandLine,
        argv: redactArgv(p.argv),
        env: Object.keys(p.env),
        engineArgs: p.spec.engineArgs,
        extraArgs: p.spec.extraArgs,
        version: info?.version ?? null,
        // SGLang's server args include api_key and the like: masked by key.
        serverInfo: info?.serverInfo ? redactDeep(info.serverInfo, { keys: true, pairs: true }) : null,
        maxModelLen: info?.maxModelLen ?? null,
        loggedConfig: l
          ? redactDeep(configFromLog(l.proc.logPath), { pairs: true })
          : { nonDefaultArgs: null, engineConfig: null },
        log: l?.proc.logPath ?? join('servers', `${p.name}.log`),
        loadSeconds: this.loadSeconds.get(p.name) ?? null,
        exit: exit
          ? {
              code: exit.code,
              signal: exit.signal,
              how: crashed ? 'crashed' : l!.proc.killed ? 'killed' : l!.proc.stopping ? 'stopped' : 'exited',
            }
          : null,
      };
    });
    const slurmJobs: SlurmJobRecord[] = this.jobs.map((j) => ({
      spec: j.spec,
      jobId: j.allocation.jobId,
      nodes: [...j.allocation.nodes],
      partition: j.allocation.partition,
      cancelled: j.cancelled,
    }));
    return { servers, events: this.events.map((e) => redactDeep({ ...e }, { pairs: true })), slurmJobs };
  }

  /** The last lines of a server's log. */
  tail(name: string, n = 20): string[] {
    const l = this.launched.find((x) => x.server.name === name);
    return l ? logTail(l.proc.logPath, n) : [];
  }
}
