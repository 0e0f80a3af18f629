// GPU assignment: which GPUs each engine process gets (its
// CUDA_VISIBLE_DEVICES). One server per GPU, or tensor-parallel groups of
// consecutive GPUs (NVLink neighbours usually are), never a GPU twice.

/** `8` (GPUs 0..7), `[0, 2]`, `"0-3"`, `"0,1,4-5"` → sorted unique ids; throws a message naming what is wrong. */
export function parseGpuList(v: unknown): number[] {
  let ids: number[];
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 1) throw new Error(`a GPU count must be an integer >= 1, got ${v}`);
    ids = Array.from({ length: v }, (_, i) => i);
  } else if (Array.isArray(v)) {
    ids = v.map((x) => {
      if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0)
        throw new Error(`GPU ids must be integers >= 0, got ${JSON.stringify(x)}`);
      return x;
    });
  } else if (typeof v === 'string') {
    ids = [];
    for (const part of v.split(',').map((p) => p.trim())) {
      const m = /^(\d+)(?:-(\d+))?$/.exec(part);
      if (!m) throw new Error(`expected GPU ids like "0,1" or "0-3", got ${JSON.stringify(v)}`);
      const a = Number(m[1]);
      const b = m[2] === undefined ? a : Number(m[2]);
      if (b < a) throw new Error(`GPU range ${part} runs backwards`);
      for (let i = a; i <= b; i++) ids.push(i);
    }
  } else {
    throw new Error('expected a GPU count, a list of ids or a string like "0-3"');
  }
  const seen = new Set<number>();
  for (const id of ids) {
    if (seen.has(id)) throw new Error(`GPU ${id} is listed twice`);
    seen.add(id);
  }
  if (ids.length === 0) throw new Error('the GPU list is empty');
  return ids.sort((a, b) => a - b);
}

/** One server per GPU: [[0], [1], ...]. */
export function perGpu(gpus: readonly number[]): number[][] {
  return gpus.map((g) => [g]);
}

/** Consecutive groups of `size` GPUs, one server each; the GPU count must divide evenly. */
export function tensorParallelGroups(gpus: readonly number[], size: number): number[][] {
  if (!Number.isSafeInteger(size) || size < 1)
    throw new Error(`the tensor-parallel size must be an integer >= 1, got ${size}`);
  if (gpus.length % size !== 0) {
    throw new Error(
      `${gpus.length} GPU${gpus.length === 1 ? '' : 's'} (${gpus.join(',')}) cannot be split into tensor-parallel groups of ${size}`,
    );
  }
  const out: number[][] = [];
  for (let i = 0; i < gpus.length; i += size) out.push(gpus.slice(i, i + size));
  return out;
}

/** The CUDA_VISIBLE_DEVICES value of a group. */
export function cudaVisibleDevices(group: readonly number[]): string {
  return group.join(',');
}
