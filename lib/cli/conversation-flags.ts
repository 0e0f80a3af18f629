// The multi-turn flags of `loadgen run` (--conversations, --multiturn,
// --max-concurrent-conversations, --tool-results, --tool-handler) → the
// `conversations` option of runBenchmark. Checked here, without I/O.
import type { ConversationsSpec } from '../multiturn/run-conversations.js';
import type { RunFlags } from './config-file.js';
import { UsageError } from './errors.js';

export function conversationsFrom(f: RunFlags): ConversationsSpec | undefined {
  const extra: [unknown, string][] = [
    [f.multiturn, '--multiturn'],
    [f.maxConcurrentConversations, '--max-concurrent-conversations'],
    [f.toolResults, '--tool-results'],
    [f.toolHandler, '--tool-handler'],
  ];
  if (f.conversations === undefined) {
    const given = extra.find(([v]) => v !== undefined);
    if (given) throw new UsageError(`${given[1]} needs --conversations (a conversation file)`);
    return undefined;
  }
  if (f.dataset !== undefined || f.synthetic !== undefined || f.syntheticSamples !== undefined) {
    throw new UsageError('--conversations and --dataset/--synthetic exclude each other');
  }
  const mode = f.multiturn ?? 'replay';
  if (mode !== 'replay' && mode !== 'live')
    throw new UsageError(`--multiturn ${JSON.stringify(mode)}: expected replay or live`);
  const spec: ConversationsSpec = { path: f.conversations, mode };
  if (f.maxConcurrentConversations !== undefined) {
    if (!Number.isSafeInteger(f.maxConcurrentConversations) || f.maxConcurrentConversations < 1) {
      throw new UsageError(
        `--max-concurrent-conversations must be an integer >= 1, got ${String(f.maxConcurrentConversations)}`,
      );
    }
    spec.maxConcurrent = f.maxConcurrentConversations;
  }
  if (f.toolResults !== undefined) spec.toolResults = f.toolResults;
  if (f.toolHandler !== undefined) spec.toolHandler = f.toolHandler;
  return spec;
}
