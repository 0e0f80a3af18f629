// report.html in a real browser: Debian's headless Chromium parses the page
// (every chart survives into the DOM) and scripts/screenshot-report.mjs
// renders it to a PNG with every host blocked. Skipped when no chromium is
// installed (apt-get install -y chromium).
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, test } from 'vitest';

import { writeRunOutputs } from '../../lib/results/write-outputs.js';
import { REPO_ROOT } from '../helpers.js';
import { customRecord, llmRecord } from './helpers.js';
import { dumpDom, findChromium } from '../chromium.js';

const CHROMIUM = findChromium();

/** PNG width and height from the IHDR chunk. */
function pngSize(path: string): { width: number; height: number } {
  const b = readFileSync(path);
  expect(b.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe.skipIf(!CHROMIUM)('report.html in headless Chromium', () => {
  test.each([
    ['LLM Server run', () => llmRecord({ queries: 120, qps: 150, minDurationMs: 500 })],
    ['custom Offline run', () => customRecord('Offline')],
  ])('%s: parsed DOM keeps the verdict and every chart; screenshot written', async (_name, make) => {
    const rec = await make();
    await writeRunOutputs(rec);
    const page = join(rec.outdir, 'report.html');
    const html = readFileSync(page, 'utf8');
    const dom = dumpDom(CHROMIUM!, page);
    expect(dom.status, dom.stderr).toBe(0);
    const status = rec.result.valid ? 'VALID' : 'INVALID';
    expect(dom.stdout).toMatch(new RegExp(`<section class="verdict ${status}"`));
    expect((dom.stdout.match(/<svg /g) ?? []).length).toBe((html.match(/<svg /g) ?? []).length);
    expect(dom.stdout).not.toMatch(/<parsererror/);

    const png = join(rec.outdir, 'report.png');
    const shot = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'scripts', 'screenshot-report.mjs'), page, png, '--width', '1280', '--height', '2000'],
      { encoding: 'utf8', timeout: 90_000 },
    );
    expect(shot.status, shot.stderr).toBe(0);
    expect(statSync(png).size).toBeGreaterThan(10_000);
    expect(pngSize(png)).toEqual({ width: 1280, height: 2000 });
  });
});

test('the screenshot script refuses bad arguments with exit 2', () => {
  const r = spawnSync(
    process.execPath,
    [join(REPO_ROOT, 'scripts', 'screenshot-report.mjs'), '/nonexistent/report.html'],
    { encoding: 'utf8' },
  );
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/no such file/);
  const u = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'screenshot-report.mjs')], { encoding: 'utf8' });
  expect(u.status).toBe(2);
});
