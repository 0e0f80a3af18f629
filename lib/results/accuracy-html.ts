// report.html's "Accuracy" section: each metric's score, its target and
// the verdict, for accuracy and submission runs scored with --tokenizer.
import type { RunAccuracy } from './run-record.js';
import { esc, fmtNum, table } from './html-text.js';

const num = (v: number | undefined): string => (v === undefined ? '-' : fmtNum(v));

export function accuracySection(a: RunAccuracy): string {
  if ('error' in a) return `<p class="note">Accuracy was not scored: ${esc(a.error)}</p>`;
  const verdict = a.pass === null ? 'no targets known' : a.pass ? 'PASS' : 'FAIL';
  const rows = a.verdicts.map((v) => [v.metric, num(v.value), num(v.target), num(v.upperLimit), v.status]);
  const notes = a.notes.length ? `<ul>${a.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '';
  return `<p><b>${esc(verdict)}</b> · ${esc(a.benchmark)} · ${esc(String(a.samples))} samples scored · TEST06 checks ${esc(a.checksPass ? 'pass' : 'FAIL')} · details in ${esc(a.file)}</p>
${table(['metric', 'score', 'target', 'upper limit', 'verdict'], rows)}${notes}
`;
}
