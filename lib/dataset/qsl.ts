// A dataset as LoadGen's query sample library.

import type { QuerySampleLibrary } from '../core/start-test.js';
import { DatasetError, type Dataset } from './types.js';

export interface DatasetQslOptions {
  /** Samples LoadGen loads at once; default the dataset size (as MLPerf LLM benchmarks do). */
  performanceSampleCount?: number;
  /** Called with the indices LoadGen loads (e.g. to prebuild request bodies); may be async. */
  onLoad?: (indices: number[]) => void | Promise<void>;
  /** Called with the indices LoadGen unloads; may be async. */
  onUnload?: (indices: number[]) => void | Promise<void>;
}

/** Wraps a dataset as a QuerySampleLibrary for startTest. */
export function datasetQsl(dataset: Dataset, options: DatasetQslOptions = {}): QuerySampleLibrary {
  const total = dataset.size;
  if (!Number.isSafeInteger(total) || total < 1) {
    throw new DatasetError(`dataset '${dataset.name}' has no samples (size ${String(total)})`);
  }
  const perf = options.performanceSampleCount ?? total;
  if (!Number.isSafeInteger(perf) || perf < 1 || perf > total) {
    throw new DatasetError(
      `performanceSampleCount must be an integer in 1..${total} (the dataset size), got ${String(options.performanceSampleCount)}`,
    );
  }
  const { onLoad, onUnload } = options;
  return {
    name: dataset.name,
    totalSampleCount: total,
    performanceSampleCount: perf,
    loadSamplesToRam(indices: number[]) {
      return onLoad?.(indices);
    },
    unloadSamplesFromRam(indices: number[]) {
      return onUnload?.(indices);
    },
  };
}
