// A real ssh daemon on 127.0.0.1 for the ssh launcher's tests: its own host
// key, a client key made for the test, a free port, everything in a temp
// dir. Node names (node-a, node-b...) are aliases of 127.0.0.1 in a
// generated ssh_config given to ssh with -F, as separate hosts would be.
// It needs root (sshd runs the session as the key's user) and Debian's
// openssh-server; without them `startSshd` says why, and the tests skip.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../ports.js';

const SSHD = '/usr/sbin/sshd';

export interface Sshd {
  port: number;
  dir: string;
  /** The client key sshd accepts. */
  key: string;
  /** A key sshd does not know. */
  strangerKey: string;
  /** ssh_config with `nodes` as aliases of 127.0.0.1 on this daemon. */
  config: string;
  /** Same aliases, but offering only the stranger key. */
  strangerConfig: string;
  log(): string;
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function which(cmd: string): boolean {
  try {
    execFileSync('/bin/sh', ['-c', 'command -v "$1"', 'sh', cmd], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why a real sshd cannot be run here, or null when it can. */
export function sshdUnavailable(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not running as root (sshd must switch to the session user)';
  if (!existsSync(SSHD)) return `${SSHD} is missing (apt-get install openssh-server)`;
  for (const c of ['ssh', 'ssh-keygen']) if (!which(c)) return `${c} is missing (apt-get install openssh-client)`;
  return null;
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

function keygen(path: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'loadgen-test', '-f', path], {
    stdio: 'ignore',
  });
}

function clientConfig(nodes: readonly string[], port: number, key: string): string {
  return `${nodes
    .map(
      (n) =>
        `Host ${n}\n  HostName 127.0.0.1\n  Port ${port}\n  User root\n  IdentityFile ${key}\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n  ConnectTimeout 10\n`,
    )
    .join('')}`;
}

/** Starts sshd (bounded: 15 s to accept connections); the caller stops it in afterAll. */
export async function startSshd(nodes: readonly string[]): Promise<Sshd> {
  const dir = mkdtempSync(join(tmpdir(), 'lg-sshd-'));
  const hostKey = join(dir, 'host_ed25519');
  const key = join(dir, 'id_ed25519');
  const strangerKey = join(dir, 'stranger_ed25519');
  for (const k of [hostKey, key, strangerKey]) keygen(k);
  const authorized = join(dir, 'authorized_keys');
  writeFileSync(authorized, readFileSync(`${key}.pub`));
  const port = await freePort();
  const cfg = join(dir, 'sshd_config');
  writeFileSync(
    cfg,
    [
      `ListenAddress 127.0.0.1`,
      `Port ${port}`,
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorized}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'PermitRootLogin prohibit-password',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'StrictModes no',
      'UsePAM no',
      'PrintMotd no',
      'PrintLastLog no',
      'X11Forwarding no',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  // Debian's sshd refuses to start without its privilege separation directory.
  mkdirSync('/run/sshd', { recursive: true });
  const logPath = join(dir, 'sshd.log');
  const child: ChildProcess = spawn(SSHD, ['-D', '-f', cfg, '-E', logPath], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const config = join(dir, 'ssh_config');
  writeFileSync(config, clientConfig(nodes, port, key));
  const strangerConfig = join(dir, 'ssh_config_stranger');
  writeFileSync(strangerConfig, clientConfig(nodes, port, strangerKey));
  const log = (): string => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  // If the test process ends without stop() (a crashed worker), sshd ends with it.
  const atExit = (): void => {
    if (running()) child.kill('SIGKILL');
  };
  process.on('exit', atExit);
  const stop = async (): Promise<void> => {
    if (running()) {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (running()) child.kill('SIGKILL');
    }
    process.off('exit', atExit);
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 150; i++) {
    if (await accepts(port)) return { port, dir, key, strangerKey, config, strangerConfig, log, stop };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  const why = log();
  await stop();
  throw new Error(`sshd did not start on 127.0.0.1:${port}:\n${why}`);
}
