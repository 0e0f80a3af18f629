/**
 * A Linux PM QoS request that keeps the CPUs out of idle states slower to
 * leave than a bound, for as long as a test runs.
 *
 * Why: a thread that sleeps until a query's scheduled time (LoadGen's issue
 * thread, an adapter worker waiting on its socket) wakes on a CPU that went
 * idle. On a VM an idle vCPU halts and the host takes its time to run it
 * again, so such a thread can wake milliseconds late at the tail; with this
 * request at 0 µs the vCPUs poll instead of halting and wake-ups come on
 * time. Those milliseconds would be measured as TTFT by the harness, not by
 * the server.
 * It is what `tuned`'s latency-performance profile does (force_latency):
 * the request holds while the file stays open and ends when it is closed,
 * or when the process exits, however it exits. Idle CPUs then poll: more
 * power, and on a VM more of the host's time.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

import { SettingsError } from './settings.js';

export const CPU_DMA_LATENCY = '/dev/cpu_dma_latency';

export interface CpuIdleLatencyHold {
  /** The bound requested, µs. */
  readonly us: number;
  /** Ends the request; idempotent. */
  release(): void;
}

/**
 * Opens `device` (the kernel's PM QoS file) and writes the bound as the
 * binary 32-bit value the kernel reads. Throws a SettingsError for a bad
 * value and an Error naming the file and the reason when it cannot be held.
 */
export function holdCpuIdleLatency(us: unknown, device: string = CPU_DMA_LATENCY): CpuIdleLatencyHold {
  if (typeof us !== 'number' || !Number.isInteger(us) || us < 0 || us > 2_000_000_000) {
    throw new SettingsError(
      'cpuIdleLatencyUs',
      `cpuIdleLatencyUs must be an integer number of microseconds from 0 to 2000000000, got ${String(us)}`,
    );
  }
  if (process.platform !== 'linux') {
    throw new Error(
      `cpuIdleLatencyUs: a PM QoS request (${device}) exists on Linux only, not on ${process.platform}; leave the option out`,
    );
  }
  let fd: number;
  try {
    fd = openSync(device, 'w');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    const why =
      code === 'EACCES' || code === 'EPERM'
        ? 'it needs root or write access to it'
        : code === 'ENOENT'
          ? 'this kernel or container has no such file'
          : 'it could not be opened';
    throw new Error(
      `cpuIdleLatencyUs: cannot open ${device} (${code}): ${why}; leave the option out to run without the request`,
    );
  }
  const value = Buffer.alloc(4);
  value.writeInt32LE(us, 0);
  try {
    writeSync(fd, value);
  } catch (err) {
    closeSync(fd);
    throw new Error(
      `cpuIdleLatencyUs: writing ${us} to ${device} failed (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  let open = true;
  return {
    us,
    release() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
