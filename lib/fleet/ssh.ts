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

/**
 * The remote shell line: cd, then the environment and exec (so the engine is
 * the session's process): `cd DIR && K=V exec ARGV`, every word quoted for a
 * POSIX login shell (sh, bash, dash, zsh) on the node.
 */
export function remoteLine(argv: readonly string[], env: Record<string, string>, workdir?: string): string {
  const vars = Object.entries(env)
    .map(([k, v]) => `${k}=${shellQuote(v)} `)
    .join('');
  const run = `${vars}exec ${commandLine(argv)}`;
  return workdir ? `cd ${shellQuote(workdir)} && ${run}` : run;
}

/** A node or user ssh reads as itself (not as an option, not split by the remote shell), or an error message. */
export function sshNameProblem(what: 'host' | 'user', v: string): string | null {
  if (v.startsWith('-')) return `must not start with '-' (ssh would read it as an option), got ${JSON.stringify(v)}`;
  const ok = what === 'host' ? /^[A-Za-z0-9_.:%[\]-]+$/ : /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
  if (!ok.test(v))
    return `must be a ${what === 'host' ? 'host name or address' : 'user name'} (letters, digits, ${what === 'host' ? "'.', '-', '_', ':'" : "'.', '-', '_'"}), got ${JSON.stringify(v)}`;
  return null;
}

/** The local argv that runs `argv` on `node` through ssh. */
export function sshArgv(
  node: string,
  argv: readonly string[],
  env: Record<string, string>,
  o: SshOptions = {},
): string[] {
  for (const [what, v] of [
    ['host', node],
    ['user', o.user],
  ] as const) {
    const problem = v === undefined ? null : sshNameProblem(what, v);
    if (problem) throw new TypeError(`ssh ${what} ${problem}`);
  }
  const out = ['ssh', '-tt', '-o', 'BatchMode=yes'];
  if (o.port !== undefined) out.push('-p', String(o.port));
  if (o.identityFile !== undefined) out.push('-i', o.identityFile);
  for (const opt of o.options ?? []) out.push('-o', opt);
  out.push(o.user ? `${o.user}@${node}` : node, '--', remoteLine(argv, env, o.workdir));
  return out;
}
