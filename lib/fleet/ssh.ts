// Servers on other nodes: the command (with its environment and working
// directory) becomes one remote shell line run by ssh. `-tt` gives the
// remote command a terminal, so when the local ssh process is stopped the
// remote engine gets SIGHUP and dies with it instead of lingering on the GPU.
import type { SshOptions } from './types.js';

/** POSIX shell quoting: bare when safe, else single quotes. */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** argv as one line a user can paste into a shell. */
export function commandLine(argv: readonly string[], env: Record<string, string> = {}): string {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...vars, ...argv.map(shellQuote)].join(' ');
}

/** The remote shell line: cd, environment, then exec (so the engine is the session's process). */
export function remoteLine(argv: readonly string[], env: Record<string, string>, workdir?: string): string {
  const run = `exec ${commandLine(argv, env)}`;
  return workdir ? `cd ${shellQuote(workdir)} && ${run}` : run;
}

/** The local argv that runs `argv` on `node` through ssh. */
export function sshArgv(node: string, argv: readonly string[], env: Record<string, string>, o: SshOptions = {}): string[] {
  const out = ['ssh', '-tt', '-o', 'BatchMode=yes'];
  if (o.port !== undefined) out.push('-p', String(o.port));
  if (o.identityFile !== undefined) out.push('-i', o.identityFile);
  for (const opt of o.options ?? []) out.push('-o', opt);
  out.push(o.user ? `${o.user}@${node}` : node, '--', remoteLine(argv, env, o.workdir));
  return out;
}
