// @x/loadgen/fleet: launching the servers a run measures (`loadgen run` with
// a `servers:` section, `loadgen serve`): specs, planning, command lines,
// GPU groups and the server lifecycle. API.md, section @x/loadgen/fleet.

// ── Running against launched servers ────────────────────────────────────────
export { runWithFleet } from './run/run-fleet.js';
export type { FleetRunOptions } from './run/run-fleet.js';
export { Fleet } from './fleet/fleet.js';
export type { FleetOptions } from './fleet/fleet.js';

// ── Specs and plans ─────────────────────────────────────────────────────────
export { parseServersSection, ENGINE_ARG_KINDS } from './fleet/spec.js';
export { planServers, gpuGroups } from './fleet/plan.js';
export { renderCommand, renderEnv, flagsFor } from './fleet/render.js';
export type { RenderTarget } from './fleet/render.js';

// ── GPUs ────────────────────────────────────────────────────────────────────
export { parseGpuList, perGpu, tensorParallelGroups, cudaVisibleDevices } from './fleet/gpus.js';

export type {
  ServerSpec,
  EngineArgs,
  ServerBackend,
  SshOptions,
  SlurmOptions,
  SlurmJobRecord,
  PlannedServer,
  FleetRecord,
  ServerRecord,
  FleetEvent,
  FleetEventKind,
} from './fleet/types.js';
