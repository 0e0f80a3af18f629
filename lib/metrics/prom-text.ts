// A parser for the Prometheus text exposition format (version 0.0.4), as
// vLLM and SGLang serve it through prometheus_client: `# HELP` / `# TYPE`
// comments, `name{label="value",...} value [timestamp]` samples, label
// values with \\, \" and \n escapes, and the special values +Inf, -Inf, NaN.
// Malformed lines are skipped (a scrape must not fail on one odd metric).

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseValue(s: string): number {
  switch (s) {
    case '+Inf':
    case 'Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
    default:
      return s === '' ? NaN : Number(s);
  }
}

/** Reads `{a="x",b="y"}` starting at `at` (the '{'); returns the labels and the index after '}', or null. */
function parseLabels(line: string, at: number): { labels: Record<string, string>; end: number } | null {
  const labels: Record<string, string> = {};
  let i = at + 1;
  for (;;) {
    while (line[i] === ' ' || line[i] === ',') i++;
    if (line[i] === '}') return { labels, end: i + 1 };
    const eq = line.indexOf('=', i);
    if (eq < 0 || line[eq + 1] !== '"') return null;
    const key = line.slice(i, eq).trim();
    let v = '';
    let j = eq + 2;
    for (; j < line.length; j++) {
      const c = line[j];
      if (c === '\\') {
        const n = line[++j];
        v += n === 'n' ? '\n' : n;
      } else if (c === '"') break;
      else v += c;
    }
    if (j >= line.length) return null;
    labels[key] = v;
    i = j + 1;
  }
}

export function parsePrometheusText(text: string): PromSample[] {
  const out: PromSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line[0] === '#') continue;
    const brace = line.indexOf('{');
    const space = line.search(/\s/);
    let name: string;
    let labels: Record<string, string> = {};
    let rest: string;
    if (brace >= 0 && (space < 0 || brace < space)) {
      name = line.slice(0, brace);
      const l = parseLabels(line, brace);
      if (!l) continue;
      labels = l.labels;
      rest = line.slice(l.end).trim();
    } else {
      if (space < 0) continue;
      name = line.slice(0, space);
      rest = line.slice(space).trim();
    }
    // The value, then an optional timestamp.
    const value = parseValue(rest.split(/\s+/)[0]);
    if (name === '' || (Number.isNaN(value) && rest.split(/\s+/)[0] !== 'NaN')) continue;
    out.push({ name, labels, value });
  }
  return out;
}
