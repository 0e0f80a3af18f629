// What must be equal for a journal to be resumed: the settings, the dataset's
// prompts and the model/wire/sampling choices. Hashed (sha256) for the quick
// check, kept whole in the journal header so a refusal can say what differs.
// Endpoint URLs are not part of it: a run may be resumed against other nodes.
import { createHash } from 'node:crypto';

import type { Dataset, Prompt } from '../dataset/types.js';

export interface RunConfig {
  settings: Record<string, unknown>;
  dataset: { name: string; size: number; sha256: string };
  model: string;
  backend: string;
  api: string;
  benchmark: string | null;
  sampling: Record<string, unknown>;
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as ArrayLike<unknown>, canonical);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = canonical(x);
    }
    return out;
  }
  return typeof v === 'bigint' ? v.toString() : v;
}

/** JSON with sorted keys (typed arrays as lists): equal content, equal text. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(canonical(v));
}

function promptPart(p: Prompt): unknown {
  return { tokenIds: p.tokenIds, text: p.text, messages: p.messages, maxTokens: p.maxTokens, tools: p.tools };
}

/** sha256 over every prompt (what is sent, not the file: the same rows read another way hash the same). */
export function datasetSha256(ds: Dataset): string {
  const h = createHash('sha256');
  for (let i = 0; i < ds.size; i++) h.update(canonicalJson(promptPart(ds.prompt(i)))).update('\n');
  return h.digest('hex');
}

export function configHash(c: RunConfig): string {
  return createHash('sha256').update(canonicalJson(c)).digest('hex');
}

/** Human lines naming what differs between the journal's configuration and this run's. */
export function configDifferences(was: RunConfig, now: RunConfig): string[] {
  const out: string[] = [];
  const keys = new Set([...Object.keys(was.settings ?? {}), ...Object.keys(now.settings ?? {})]);
  for (const k of [...keys].sort()) {
    const a = canonicalJson(was.settings?.[k]);
    const b = canonicalJson(now.settings?.[k]);
    if (a !== b) out.push(`setting ${k}: ${a ?? 'unset'} then, ${b ?? 'unset'} now`);
  }
  if (was.dataset?.sha256 !== now.dataset.sha256 || was.dataset?.size !== now.dataset.size) {
    out.push(
      `dataset: ${was.dataset?.name} (${was.dataset?.size} samples) then, ${now.dataset.name} (${now.dataset.size} samples) now, with other prompts`,
    );
  }
  for (const k of ['model', 'backend', 'api', 'benchmark'] as const) {
    if (was[k] !== now[k]) out.push(`${k}: ${String(was[k])} then, ${String(now[k])} now`);
  }
  if (canonicalJson(was.sampling) !== canonicalJson(now.sampling))
    out.push(`sampling: ${canonicalJson(was.sampling)} then, ${canonicalJson(now.sampling)} now`);
  return out;
}
