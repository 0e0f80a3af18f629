// Synthetic dataset: deterministic random token-id prompts. Each sample is
// generated from (seed, index) alone, so prompt(i) is the same whatever the
// access order, and nothing is held in memory.

import { DatasetError, type Dataset, type Prompt } from './types.js';

/** A fixed length, a uniform integer range, or a normal distribution (rounded, at least 1). */
export type LengthSpec = number | { min: number; max: number } | { mean: number; std: number };

export interface SyntheticOptions {
  size: number;
  inputLength: LengthSpec;
  outputLength: LengthSpec;
  /** Token ids are drawn uniformly from [0, vocabSize); default 32000. */
  vocabSize?: number;
  /** Default 1. */
  seed?: number;
  /** Default `synthetic`. */
  name?: string;
}

export interface SyntheticDataset extends Dataset {
  /** Prompt length of sample `index` (without generating its tokens). */
  inputLength(index: number): number;
  /** Output cap of sample `index`. */
  outputLength(index: number): number;
}

/** 32-bit mix (the splitmix32 / murmur3 finaliser). */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** sfc32: a small, fast PRNG with a 128-bit state; returns uint32. */
export class Sfc32 {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seed: number, stream = 0) {
    this.a = mix32(seed ^ 0x9e3779b9);
    this.b = mix32((stream + 0x7f4a7c15) ^ this.a);
    this.c = mix32(this.a ^ this.b ^ 0x632be5ab);
    for (let i = 0; i < 12; i++) this.next();
  }

  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** Uniform integer in [0, n), n ≤ 2^32, without modulo bias. */
  below(n: number): number {
    const limit = 4294967296 - (4294967296 % n);
    for (;;) {
      const x = this.next();
      if (x < limit) return x % n;
    }
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    let u = this.float();
    while (u === 0) u = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.float());
  }
}

function checkLength(what: string, spec: LengthSpec): void {
  const bad = (why: string): never => {
    throw new DatasetError(`synthetic dataset: ${what} ${why}, got ${JSON.stringify(spec)}`);
  };
  if (typeof spec === 'number') {
    if (!Number.isSafeInteger(spec) || spec < 1) bad('must be a positive integer');
  } else if (spec && typeof spec === 'object' && 'min' in spec && 'max' in spec) {
    if (!Number.isSafeInteger(spec.min) || !Number.isSafeInteger(spec.max) || spec.min < 1 || spec.max < spec.min) {
      bad('{min, max} must be integers with 1 ≤ min ≤ max');
    }
  } else if (spec && typeof spec === 'object' && 'mean' in spec && 'std' in spec) {
    if (!Number.isFinite(spec.mean) || spec.mean < 1 || !Number.isFinite(spec.std) || spec.std < 0) {
      bad('{mean, std} must have mean ≥ 1 and std ≥ 0');
    }
  } else {
    bad('must be a number, {min, max} or {mean, std}');
  }
}

function drawLength(spec: LengthSpec, rng: Sfc32): number {
  if (typeof spec === 'number') return spec;
  if ('min' in spec) return spec.min + rng.below(spec.max - spec.min + 1);
  return Math.max(1, Math.round(spec.mean + spec.std * rng.normal()));
}

/** A deterministic random token-id dataset. */
export function syntheticDataset(options: SyntheticOptions): SyntheticDataset {
  const { size, inputLength, outputLength, vocabSize = 32000, seed = 1, name = 'synthetic' } = options;
  if (!Number.isSafeInteger(size) || size < 1)
    throw new DatasetError(`synthetic dataset: size must be a positive integer, got ${size}`);
  if (!Number.isSafeInteger(vocabSize) || vocabSize < 1 || vocabSize > 0x80000000) {
    throw new DatasetError(`synthetic dataset: vocabSize must be an integer in 1..2^31, got ${vocabSize}`);
  }
  if (!Number.isSafeInteger(seed)) throw new DatasetError(`synthetic dataset: seed must be an integer, got ${seed}`);
  checkLength('inputLength', inputLength);
  checkLength('outputLength', outputLength);

  const check = (index: number): void => {
    if (!Number.isInteger(index) || index < 0 || index >= size) {
      throw new DatasetError(`synthetic dataset: sample index ${index} out of range 0..${size - 1}`, undefined, index);
    }
  };
  // One generator per sample; lengths first, then the token ids.
  const lengths = (index: number): [Sfc32, number, number] => {
    const rng = new Sfc32(seed, mix32(index + 1) ^ index);
    const inLen = drawLength(inputLength, rng);
    const outLen = drawLength(outputLength, rng);
    return [rng, inLen, outLen];
  };

  return {
    name,
    size,
    inputLength(index) {
      check(index);
      return lengths(index)[1];
    },
    outputLength(index) {
      check(index);
      return lengths(index)[2];
    },
    prompt(index): Prompt {
      check(index);
      const [rng, inLen, outLen] = lengths(index);
      const tokenIds = new Int32Array(inLen);
      for (let i = 0; i < inLen; i++) tokenIds[i] = rng.below(vocabSize);
      return { tokenIds, maxTokens: outLen };
    },
  };
}
