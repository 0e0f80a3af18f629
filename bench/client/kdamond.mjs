// DAMON's kernel threads (kdamond.N) at SCHED_IDLE for the length of a bench.
//
// Why: this VM's kernel runs DAMON physical-address monitoring with a
// page-out scheme (the host's balloon takes the cold pages). kdamond wakes
// every ~512 ms and holds a vCPU for 1-4 ms at nice 0; a thread woken on that
// vCPU meanwhile waits for kdamond's slice to end. Measured with a C loop
// sleeping 200 µs at a time for 10 s on each vCPU: 27 wake-ups over 0.5 ms
// late (worst 4.1 ms) on the vCPU kdamond ran on, 2 (worst 0.9 ms) with
// kdamond at SCHED_IDLE, which gives way to a waking thread at its next
// rescheduling point instead of finishing its slice. It is a property of the
// machine, not of the client, so the bench can take it out (opt-in, root
// only) and says so in its output; the thread keeps running in idle time and
// gets its policy back when the bench ends: normally, on an error, on
// SIGINT or SIGTERM (not on SIGKILL).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const PF_KTHREAD = 0x00200000;
const SCHED_OTHER = 0;

/** {comm, flags, policy} from the text of /proc/PID/stat (comm may hold spaces and parentheses). */
export function parseStat(text) {
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const rest = text.slice(close + 2).split(' '); // rest[0] is field 3 (state)
  return { comm, flags: Number(rest[6]), policy: Number(rest[38]) };
}

// Of a live process, or null when it is gone.
function stat(pid) {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

function chrt(args, what) {
  const r = spawnSync('chrt', args, { encoding: 'utf8' });
  if (r.error) throw new Error(`--idle-kdamond: cannot run chrt (util-linux): ${r.error.message}`);
  if (r.status !== 0)
    throw new Error(
      `--idle-kdamond: chrt ${args.join(' ')} (${what}) failed: ${(r.stderr || '').trim() || `exit ${r.status}`}`,
    );
}

/** Linux: the kdamond kernel threads at SCHED_OTHER, [{pid, comm}]. */
export function kdamondThreads() {
  const threads = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(name);
    if (s === null || !s.comm.startsWith('kdamond') || (s.flags & PF_KTHREAD) === 0 || s.policy !== SCHED_OTHER)
      continue;
    threads.push({ pid: Number(name), comm: s.comm });
  }
  return threads;
}

/**
 * Puts every kdamond kernel thread running at SCHED_OTHER at SCHED_IDLE.
 * Returns { threads: [{pid, comm}], restore() }; restore() is idempotent and
 * also runs at process exit. Throws, naming the cause, off Linux or without
 * the right to change a kernel thread's policy (root).
 */
export function idleKdamond() {
  if (process.platform !== 'linux')
    throw new Error(`--idle-kdamond: kdamond is a Linux kernel thread; not on ${process.platform}`);
  const threads = kdamondThreads();
  const demoted = [];
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    process.removeListener('exit', restore);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    for (const t of demoted) {
      if (stat(t.pid) === null) continue; // ended meanwhile
      try {
        chrt(['-o', '-p', '0', String(t.pid)], `restoring ${t.comm}`);
      } catch (err) {
        process.stderr.write(`${err.message}\n`);
      }
    }
  };
  // Node ends on SIGINT/SIGTERM without 'exit' handlers: restore, then end as the signal would.
  const onSignal = (sig) => {
    restore();
    process.exit(128 + (sig === 'SIGINT' ? 2 : 15));
  };
  process.on('exit', restore);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const t of threads) {
      chrt(['-i', '-p', '0', String(t.pid)], t.comm);
      demoted.push(t);
    }
  } catch (err) {
    restore();
    throw err;
  }
  return { threads, restore };
}
