// Servers on other nodes: the command (with its environment and working
// directory) becomes one remote shell line run by ssh. `-tt` gives the
// remote command a terminal, so when the local ssh process is stopped the
// remote engine gets SIGHUP and dies with it instead of lingering on the GPU.
import { execFile } from 'node:child_process';

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
  // The terminal -tt asks for would turn every \n of the log into \r\n: not with -onlcr.
  const run = `${vars}exec ${commandLine(argv)}`;
  return `stty -onlcr 2>/dev/null; ${workdir ? `cd ${shellQuote(workdir)} && ${run}` : run}`;
}

/** A node or user ssh reads as itself (not as an option, not split by the remote shell), or an error message. */
export function sshNameProblem(what: 'host' | 'user', v: string): string | null {
  if (v.startsWith('-')) return `must not start with '-' (ssh would read it as an option), got ${JSON.stringify(v)}`;
  const ok = what === 'host' ? /^[A-Za-z0-9_.:%[\]-]+$/ : /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
  if (!ok.test(v))
    return `must be a ${what === 'host' ? 'host name or address' : 'user name'} (letters, digits, ${what === 'host' ? "'.', '-', '_', ':'" : "'.', '-', '_'"}), got ${JSON.stringify(v)}`;
  return null;
}

/** ssh's options and destination for `node` (everything but -tt and the remote command). */
function sshTarget(node: string, o: SshOptions): string[] {
  for (const [what, v] of [
    ['host', node],
    ['user', o.user],
  ] as const) {
    const problem = v === undefined ? null : sshNameProblem(what, v);
    if (problem) throw new TypeError(`ssh ${what} ${problem}`);
  }
  const out = ['-o', 'BatchMode=yes'];
  if (o.configFile !== undefined) out.push('-F', o.configFile);
  if (o.port !== undefined) out.push('-p', String(o.port));
  if (o.identityFile !== undefined) out.push('-i', o.identityFile);
  for (const opt of o.options ?? []) out.push('-o', opt);
  out.push(o.user ? `${o.user}@${node}` : node);
  return out;
}

/** The local argv that runs `argv` on `node` through ssh. */
export function sshArgv(
  node: string,
  argv: readonly string[],
  env: Record<string, string>,
  o: SshOptions = {},
): string[] {
  return ['ssh', '-tt', ...sshTarget(node, o), '--', remoteLine(argv, env, o.workdir)];
}

/**
 * The address ssh connects to for `node` (`ssh -G`: the HostName of an alias
 * in the ssh config), so the harness sends its requests where ssh started
 * the server. The node's own name when ssh cannot tell (no ssh client here).
 */
export function sshHostAddress(node: string, o: SshOptions = {}): Promise<string> {
  const argv = sshTarget(node, o);
  return new Promise((resolve) => {
    execFile('ssh', ['-G', ...argv], { timeout: 10_000 }, (err, stdout) => {
      const host = err ? undefined : /^hostname (\S+)$/m.exec(stdout)?.[1];
      resolve(host && sshNameProblem('host', host) === null ? host : node);
    });
  });
}
