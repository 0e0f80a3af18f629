// The references (and each row's source dataset, for the benchmarks that
// score per category) that an accuracy log is scored against: from a
// dataset file, a Dataset already open, or given inline.
import { openDataset } from '../dataset/open.js';
import { DatasetError, type Dataset } from '../dataset/types.js';
import {
  AccuracyInputError,
  type AccuracyReport,
  type InlineReferences,
  type ScoreAccuracyOptions,
} from './score-types.js';
import type { BenchmarkAccuracy } from './targets.js';

/**
 * Opens the dataset for its references: with the benchmark's preset first; a
 * file without the preset's prompt columns (a references-only conversion)
 * is read with only the reference column mapped, then with that column also
 * standing in as the prompt.
 */
async function openReferences(
  path: string,
  spec: BenchmarkAccuracy,
  refCol: string | undefined,
  limit: number | undefined,
) {
  const ref = refCol ?? spec.referenceColumn;
  const lim = limit !== undefined ? { limit } : {};
  const attempts: Array<Parameters<typeof openDataset>[1]> = [
    { preset: spec.datasetPreset, ...(refCol !== undefined ? { mapping: { reference: refCol } } : {}), ...lim },
    { mapping: { reference: ref }, ...lim },
    {
      mapping: { reference: ref, text: ref, tokenIds: null, messages: null, system: null, user: null, maxTokens: null },
      ...lim,
    },
  ];
  let first: unknown;
  for (const a of attempts) {
    try {
      return await openDataset(path, a);
    } catch (err) {
      if (!(err instanceof DatasetError) || /no such file|cannot read|not a file|format/.test(err.message)) throw err;
      first ??= err;
    }
  }
  throw first;
}

export async function loadReferences(
  dataset: string | InlineReferences | Dataset,
  spec: BenchmarkAccuracy,
  options: ScoreAccuracyOptions,
): Promise<{ refs: readonly string[]; cats?: readonly string[]; info: AccuracyReport['dataset'] }> {
  if (typeof dataset === 'object' && dataset !== null && typeof (dataset as Dataset).prompt === 'function') {
    const ds = dataset as Dataset;
    const refs: string[] = new Array(ds.size);
    for (let i = 0; i < ds.size; i++) {
      const r = ds.prompt(i).reference;
      if (r === undefined)
        throw new AccuracyInputError(`dataset '${ds.name}': sample ${i} has no reference (map the reference column)`);
      refs[i] = typeof r === 'string' ? r : r.join(' ');
    }
    if (options.categories && options.categories.length !== ds.size) {
      throw new AccuracyInputError('categories must have one entry per dataset sample');
    }
    const path = (ds as { path?: unknown }).path;
    return {
      refs,
      ...(options.categories ? { cats: options.categories } : {}),
      info: { ...(typeof path === 'string' ? { path } : {}), size: ds.size },
    };
  }
  if (typeof dataset !== 'string') {
    dataset = dataset as InlineReferences;
    if (!Array.isArray(dataset.references))
      throw new AccuracyInputError('dataset.references must be an array of strings');
    if (dataset.categories && dataset.categories.length !== dataset.references.length) {
      throw new AccuracyInputError('dataset.categories must have one entry per reference');
    }
    return {
      refs: dataset.references,
      ...(dataset.categories ? { cats: dataset.categories } : {}),
      info: { size: dataset.references.length },
    };
  }
  const refCol = options.referenceColumn;
  const ds = await openReferences(dataset, spec, refCol, options.limit);
  const refs: string[] = new Array(ds.size);
  for (let i = 0; i < ds.size; i++) {
    const r = ds.prompt(i).reference;
    if (r === undefined) {
      throw new AccuracyInputError(
        `${dataset}: row ${i} has no reference (column '${ds.columns.reference ?? '?'}'); pass --reference-column`,
      );
    }
    refs[i] = typeof r === 'string' ? r : r.join(' ');
  }
  const info: AccuracyReport['dataset'] = { path: dataset, size: ds.size };
  if (ds.columns.reference !== undefined) info.referenceColumn = ds.columns.reference;
  const catCol = options.categoryColumn ?? spec.categoryColumn;
  if (!catCol || spec.method === 'rouge') return { refs, info };
  if (!ds.availableColumns.includes(catCol) && ds.format === 'parquet') {
    throw new AccuracyInputError(
      `${dataset}: no '${catCol}' column (the source dataset of each row); pass --category-column`,
    );
  }
  // The category column read as the text role of a second, bare mapping.
  const cats = await openDataset(dataset, {
    mapping: {
      text: catCol,
      tokenIds: null,
      messages: null,
      system: null,
      user: null,
      reference: null,
      maxTokens: null,
    },
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
  });
  const catList: string[] = new Array(cats.size);
  for (let i = 0; i < cats.size; i++) catList[i] = cats.prompt(i).text ?? '';
  info.categoryColumn = catCol;
  return { refs, cats: catList, info };
}
