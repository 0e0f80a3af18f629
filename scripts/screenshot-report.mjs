#!/usr/bin/env node
// Renders a report.html in headless Chromium to a PNG, to check the page by eye
// (or in a test). Needs Debian's chromium: apt-get install -y chromium.
//
//   node scripts/screenshot-report.mjs <report.html> [out.png] [--width 1280] [--height 5200]
//
// Exit codes: 0 written, 2 bad arguments or no such file, 3 no chromium, 1 chromium failed.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The first Chromium on PATH (or $CHROMIUM), or null. */
export function findChromium() {
  if (process.env.CHROMIUM && existsSync(process.env.CHROMIUM)) return process.env.CHROMIUM;
  for (const name of CANDIDATES) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return null;
}

function parseArgs(argv) {
  const out = { input: null, output: null, width: 1280, height: 5200 };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--width' || a === '--height') {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 200 || v > 20000) throw new Error(`${a} needs an integer in 200..20000`);
      out[a.slice(2)] = v;
    } else rest.push(a);
  }
  if (rest.length < 1 || rest.length > 2)
    throw new Error('usage: screenshot-report.mjs <report.html> [out.png] [--width N] [--height N]');
  out.input = resolve(rest[0]);
  out.output = resolve(rest[1] ?? rest[0].replace(/\.html?$/i, '') + '.png');
  return out;
}

export function screenshot({ input, output, width = 1280, height = 5200 }) {
  const chromium = findChromium();
  if (!chromium)
    return { ok: false, code: 3, message: 'no chromium found (apt-get install -y chromium, or set CHROMIUM)' };
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--hide-scrollbars',
    '--no-first-run',
    '--disable-extensions',
    // The page must need no network: block every host, so a stray reference would show as missing.
    '--host-resolver-rules=MAP * ~NOTFOUND',
    `--window-size=${width},${height}`,
    `--screenshot=${output}`,
    pathToFileURL(input).href,
  ];
  const r = spawnSync(chromium, args, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0 || !existsSync(output) || statSync(output).size === 0) {
    return { ok: false, code: 1, message: `chromium failed (status ${r.status}): ${(r.stderr || '').slice(-500)}` };
  }
  return { ok: true, code: 0, message: output };
}

function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  if (!existsSync(opts.input)) {
    process.stderr.write(`no such file: ${opts.input}\n`);
    return 2;
  }
  const r = screenshot(opts);
  (r.ok ? process.stdout : process.stderr).write(`${r.message}\n`);
  return r.code;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main();
