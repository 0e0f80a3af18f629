import { describe, expect, it } from 'vitest';
import { DatasetError, datasetQsl, syntheticDataset, type Dataset } from '../../lib/dataset/index.js';

describe('syntheticDataset', () => {
  it('is deterministic per (seed, index), whatever the access order', () => {
    const a = syntheticDataset({ size: 50, inputLength: { min: 5, max: 40 }, outputLength: { mean: 100, std: 20 } });
    const b = syntheticDataset({ size: 50, inputLength: { min: 5, max: 40 }, outputLength: { mean: 100, std: 20 } });
    const later = a.prompt(37);
    for (let i = 0; i < 50; i++) b.prompt(i);
    expect(b.prompt(37)).toEqual(later);
    expect(a.prompt(37)).toEqual(later);
    expect(a.prompt(3)).not.toEqual(a.prompt(4));
    const c = syntheticDataset({
      size: 50,
      inputLength: { min: 5, max: 40 },
      outputLength: { mean: 100, std: 20 },
      seed: 2,
    });
    expect(c.prompt(37)).not.toEqual(later);
    // A pinned value guards against accidental changes to the generator.
    const pinned = syntheticDataset({ size: 1, inputLength: 4, outputLength: 8, seed: 1 }).prompt(0);
    expect(pinned.maxTokens).toBe(8);
    expect(Array.from(pinned.tokenIds!)).toMatchInlineSnapshot(`
      [
        8198,
        20483,
        16002,
        17999,
      ]
    `);
  });

  it('fixed lengths', () => {
    const d = syntheticDataset({ size: 10, inputLength: 128, outputLength: 64, vocabSize: 100 });
    expect(d.name).toBe('synthetic');
    for (let i = 0; i < 10; i++) {
      const p = d.prompt(i);
      expect(p.tokenIds).toBeInstanceOf(Int32Array);
      expect(p.tokenIds!.length).toBe(128);
      expect(p.maxTokens).toBe(64);
      expect(d.inputLength(i)).toBe(128);
    }
  });

  it('uniform lengths stay in bounds and cover the range; ids stay in the vocabulary', () => {
    const d = syntheticDataset({
      size: 2000,
      inputLength: { min: 10, max: 20 },
      outputLength: { min: 1, max: 3 },
      vocabSize: 50,
      seed: 7,
    });
    const inSeen = new Set<number>();
    const outSeen = new Set<number>();
    let minId = Infinity;
    let maxId = -Infinity;
    for (let i = 0; i < d.size; i++) {
      const p = d.prompt(i);
      inSeen.add(p.tokenIds!.length);
      outSeen.add(p.maxTokens!);
      expect(p.tokenIds!.length).toBe(d.inputLength(i));
      expect(p.maxTokens).toBe(d.outputLength(i));
      for (const t of p.tokenIds!) {
        minId = Math.min(minId, t);
        maxId = Math.max(maxId, t);
      }
    }
    expect([...inSeen].sort((x, y) => x - y)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect([...outSeen].sort()).toEqual([1, 2, 3]);
    expect(minId).toBe(0);
    expect(maxId).toBe(49);
  });

  it('normal lengths have about the right mean and spread, never below 1', () => {
    const n = 4000;
    const d = syntheticDataset({ size: n, inputLength: { mean: 500, std: 100 }, outputLength: { mean: 2, std: 5 } });
    let sum = 0;
    let sq = 0;
    let minOut = Infinity;
    for (let i = 0; i < n; i++) {
      const len = d.inputLength(i);
      sum += len;
      sq += len * len;
      minOut = Math.min(minOut, d.outputLength(i));
    }
    const mean = sum / n;
    const std = Math.sqrt(sq / n - mean * mean);
    expect(Math.abs(mean - 500)).toBeLessThan(8); // ~5 standard errors
    expect(Math.abs(std - 100)).toBeLessThan(8);
    expect(minOut).toBe(1);
  });

  it('rejects bad options', () => {
    expect(() => syntheticDataset({ size: 0, inputLength: 1, outputLength: 1 })).toThrow(DatasetError);
    expect(() => syntheticDataset({ size: 1, inputLength: { min: 5, max: 4 }, outputLength: 1 })).toThrow(/min ≤ max/);
    expect(() => syntheticDataset({ size: 1, inputLength: 1, outputLength: { mean: 5, std: -1 } })).toThrow(/std ≥ 0/);
    expect(() => syntheticDataset({ size: 1, inputLength: 1.5, outputLength: 1 })).toThrow(/positive integer/);
    expect(() => syntheticDataset({ size: 1, inputLength: 1, outputLength: 1, vocabSize: 0 })).toThrow(/vocabSize/);
    const d = syntheticDataset({ size: 3, inputLength: 1, outputLength: 1 });
    expect(() => d.prompt(3)).toThrow(/out of range/);
  });
});

describe('datasetQsl', () => {
  const dataset: Dataset = { name: 'tiny', size: 5, prompt: (i) => ({ text: `p${i}` }) };

  it('exposes the dataset to LoadGen and forwards load/unload', async () => {
    const loaded: number[][] = [];
    const unloaded: number[][] = [];
    const qsl = datasetQsl(dataset, {
      onLoad: async (idx) => {
        await new Promise((r) => setTimeout(r, 1));
        loaded.push(idx);
      },
      onUnload: (idx) => {
        unloaded.push(idx);
      },
    });
    expect(qsl.name).toBe('tiny');
    expect(qsl.totalSampleCount).toBe(5);
    expect(qsl.performanceSampleCount).toBe(5);
    await qsl.loadSamplesToRam([0, 2, 4]);
    expect(loaded).toEqual([[0, 2, 4]]);
    await qsl.unloadSamplesFromRam([0, 2, 4]);
    expect(unloaded).toEqual([[0, 2, 4]]);
  });

  it('works without hooks and takes a performance sample count', () => {
    const qsl = datasetQsl(syntheticDataset({ size: 100, inputLength: 2, outputLength: 2 }), {
      performanceSampleCount: 10,
    });
    expect(qsl.performanceSampleCount).toBe(10);
    expect(qsl.totalSampleCount).toBe(100);
    expect(qsl.loadSamplesToRam([1])).toBeUndefined();
    expect(qsl.unloadSamplesFromRam([1])).toBeUndefined();
    expect(() => datasetQsl(dataset, { performanceSampleCount: 6 })).toThrow(/1\.\.5/);
    expect(() => datasetQsl(dataset, { performanceSampleCount: 0 })).toThrow(DatasetError);
    expect(() => datasetQsl({ ...dataset, size: 0 })).toThrow(/no samples/);
  });
});
