// Debian's headless Chromium for tests of the HTML pages (report.html,
// sweep.html): found on PATH, or null so the tests skip.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

export function findChromium(): string | null {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return null;
}

/** The DOM Chromium parsed from a local page, with every host blocked. */
export function dumpDom(chromium: string, page: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(
    chromium,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--host-resolver-rules=MAP * ~NOTFOUND',
      '--dump-dom',
      pathToFileURL(page).href,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
}
