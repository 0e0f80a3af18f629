// Progress of a running test on stderr: one line redrawn in place on a
// terminal, plain periodic lines otherwise (logs, CI). Never stdout, so
// `--json` output stays one clean document.
import type { RunProgress } from '../run/run-benchmark.js';

/** m:ss (or h:mm:ss). */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

function rate(v: number): string {
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

/** Errors as they happen: failed requests (retried ones too), and the samples that failed when fewer. */
function errorsText(p: RunProgress): string {
  const failed = p.errors ?? 0;
  const requests = Math.max(p.requestErrors ?? 0, failed);
  return failed > 0 && failed !== requests ? `${requests} errors (${failed} samples failed)` : `${requests} errors`;
}

/** One progress line (fits 80 columns): issued, completed, samples/s, tokens/s, errors, elapsed, time left. */
export function formatProgress(p: RunProgress): string {
  const parts = [
    `issued ${p.issued}`,
    `done ${p.completed}`,
    `${rate(p.qps)}/s`,
    p.tokensPerSecond !== null ? `${rate(p.tokensPerSecond)} tok/s` : '- tok/s',
    errorsText(p),
    formatDuration(p.elapsedMs),
    p.remainingMs !== null ? `~${formatDuration(p.remainingMs)} left` : '? left',
  ];
  return parts.join('  ');
}

export interface ProgressPrinter {
  update(p: RunProgress): void;
  /** Clears the live line (before other output). */
  done(): void;
}

/** A printer for `stream`: live line when it is a TTY, else a line every `everyMs`. */
export function createProgressPrinter(stream: NodeJS.WriteStream = process.stderr, everyMs = 10_000): ProgressPrinter {
  const tty = stream.isTTY === true;
  let live = false;
  let lastPlain = -Infinity;
  return {
    update(p) {
      const line = formatProgress(p);
      if (tty) {
        const width = stream.columns ?? 120;
        stream.write(`\r\x1b[2K${line.length > width - 1 ? line.slice(0, width - 1) : line}`);
        live = true;
      } else if (p.elapsedMs - lastPlain >= everyMs && (p.qps > 0 || p.elapsedMs >= everyMs)) {
        // The first line once there is a rate to show, then one per period.
        lastPlain = p.elapsedMs;
        stream.write(`progress: ${line}\n`);
      }
    },
    done() {
      if (live) stream.write('\r\x1b[2K');
      live = false;
    },
  };
}
