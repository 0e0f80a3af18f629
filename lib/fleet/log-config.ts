// vLLM does not serve its configuration over HTTP (SGLang does, at
// /get_server_info), but it logs it at start-up: "non-default args: {...}"
// (what differs from the defaults, as parsed) and "Initializing a V1 LLM
// engine (vX) with config: ..." (the whole engine configuration). Both lines
// are kept in the record, verbatim, so a result says what the engine itself
// resolved, not only what it was asked.
import { closeSync, openSync, readSync } from 'node:fs';

const HEAD_BYTES = 2 * 1024 * 1024;

export interface LoggedConfig {
  /** The text after "non-default args:" (vLLM), or null. */
  nonDefaultArgs: string | null;
  /** The text after "with config:" (vLLM's engine initialisation line), or null. */
  engineConfig: string | null;
}

/** Reads the start of a server log for the configuration lines an engine printed. */
export function configFromLog(path: string): LoggedConfig {
  let text = '';
  try {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(HEAD_BYTES);
      text = buf.toString('utf8', 0, readSync(fd, buf, 0, HEAD_BYTES, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return { nonDefaultArgs: null, engineConfig: null };
  }
  const after = (marker: RegExp): string | null => {
    for (const line of text.split('\n')) {
      const m = marker.exec(line);
      if (m) return line.slice(m.index + m[0].length).trim();
    }
    return null;
  };
  return {
    nonDefaultArgs: after(/non-default args:/),
    engineConfig: after(/Initializing a V\d+ LLM engine[^\n]*? with config:/),
  };
}
