// report.html's "Accuracy" section: each metric's score, its target and
// the verdict, for accuracy and submission runs scored with --tokenizer.
import type { RunAccuracy } from '../run/run-accuracy.js';
import { esc, fmtNum } from './html-text.js';

export function accuracySection(a: RunAccuracy): string {
  if ('error' in a) return `<p class="note">Accuracy was not scored: ${esc(a.error)}</p>`;
  const verdict = a.pass === null ? 'no targets known' : a.pass ? 'PASS' : 'FAIL';
  const rows = a.verdicts
    .map(
      (v) =>
        `<tr><td>${esc(v.metric)}</td><td>${esc(v.value === undefined ? '-' : fmtNum(v.value))}</td><td>${esc(v.target === undefined ? '-' : fmtNum(v.target))}</td><td>${esc(
          v.upperLimit === undefined ? '-' : fmtNum(v.upperLimit),
        )}</td><td>${esc(v.status)}</td></tr>`,
    )
    .join('');
  const notes = a.notes.length ? `<ul>${a.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '';
  return `<p><b>${esc(verdict)}</b> · ${esc(a.benchmark)} · ${esc(String(a.samples))} samples scored · TEST06 checks ${esc(a.checksPass ? 'pass' : 'FAIL')} · details in ${esc(a.file)}</p>
<div class="wrap"><table><thead><tr><th>metric</th><th>score</th><th>target</th><th>upper limit</th><th>verdict</th></tr></thead><tbody>${rows}</tbody></table></div>${notes}
`;
}
