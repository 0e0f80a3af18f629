// The last lines of a server's log, to show why it failed (engine logs can
// be hundreds of MB, so only the end of the file is read). Progress bars
// written with \r count as their last state, terminal colours are removed.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const TAIL_BYTES = 64 * 1024;

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the ANSI sequences this strips.
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** The last `n` non-empty lines of a file ([] when it cannot be read). */
export function logTail(path: string, n = 20): string[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    let lines = buf.toString('utf8').split('\n');
    if (len < size) lines = lines.slice(1); // the first line is cut
    return lines
      .map(
        (l) =>
          l
            .replace(ANSI, '')
            .split('\r')
            .filter((s) => s.trim() !== '')
            .pop() ?? '',
      )
      .filter((l) => l.trim() !== '' && !l.startsWith('# loadgen:'))
      .slice(-n);
  } finally {
    closeSync(fd);
  }
}

/** The tail indented under a heading, for an error message. */
export function formatTail(path: string, lines: readonly string[]): string {
  if (lines.length === 0) return `  (${path} is empty)`;
  return [`  last lines of ${path}:`, ...lines.map((l) => `    ${l}`)].join('\n');
}
