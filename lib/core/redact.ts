// The one redaction rule, for every file a run writes and everything the
// CLI prints. A secret is:
// - the value of anything named with TOKEN, KEY, SECRET, PASSWORD, PASSWD,
//   AUTH or CREDENTIAL in it (case-insensitive; names about token counts and
//   tokenizers, TOKENS, TOKEN_IDS and TOKENIZER, do not count): `--api-key X`,
//   `--hf-token=X`, `HF_TOKEN=X` or `api_key=X` (in free text, a NAME=value
//   name has an underscore or is all capitals: `key=value` in a message is
//   prose), and in server configuration dumps `'api_key': 'X'`;
// - the password (or a lone user name) of a URL: `http://user:***@host`;
// - any value registered here (the --api-key, URL passwords, the secret
//   environment of launched servers), wherever it appears, in its raw,
//   JSON-escaped, HTML-escaped and percent-encoded forms.
// Each becomes `***`.

import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';

export const MASK = '***';

const SECRET_WORD = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL/i;
// Names about counts of tokens, token ids and tokenizers are not secrets (max_tokens, tokenIds, --tokenizer).
const NOT_SECRET = /TOKENIZERS?|TOKENS|TOKEN_?IDS?/gi;

/** Whether a variable, flag or field of this name holds a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_WORD.test(name.replace(NOT_SECRET, ''));
}

// Registered values, longest first (a secret containing another is replaced whole).
const registered = new Set<string>();
let forms: string[] = [];

// Shorter values would mask ordinary text everywhere; they are still never recorded by field.
const MIN_REGISTERED = 4;

function htmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Makes `value` a secret for the rest of the process: redactText replaces it wherever it appears. */
export function registerSecret(value: string | null | undefined): void {
  if (typeof value !== 'string' || value.length < MIN_REGISTERED || registered.has(value)) return;
  registered.add(value);
  const all = new Set<string>();
  for (const v of registered) {
    all.add(v);
    all.add(JSON.stringify(v).slice(1, -1));
    all.add(htmlEscape(v));
    all.add(encodeURIComponent(v));
  }
  forms = [...all].filter((f) => f.length >= MIN_REGISTERED).sort((a, b) => b.length - a.length);
}

/** Forgets every registered value (tests). */
export function clearSecrets(): void {
  registered.clear();
  forms = [];
}

// scheme://userinfo@ ; userinfo has no '/', '?', '#', '@' or whitespace.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@'"<>]*)@/gi;
// --name value / --name=value (value: a shell-quoted word or a bare one; not another flag).
const FLAG = /(^|[\s'"[,])(--?[A-Za-z][\w.-]*)(=|\s+)('(?:[^']|'\\'')*'|"(?:[^"\\]|\\.)*"|[^\s'"\],-][^\s'"\],]*)/g;
// NAME=value (environment style, Python's Namespace(api_key='x')).
const ASSIGN = /(^|[\s'"(,;])([A-Za-z_][\w.]*)=('(?:[^']|'\\'')*'|"(?:[^"\\]|\\.)*"|[^\s'",)]+)/g;
// 'name': 'value' / "name": "value" (configuration dumps: vLLM's non-default args, SGLang's server args).
const PAIR = /(['"])([A-Za-z_][\w.-]*)\1(\s*[:=]\s*)(['"])((?:(?!\4)[^\\]|\\.)*)\4/g;

/**
 * Registered secrets and URL passwords only: safe on any serialized document
 * (JSON, HTML), where the name-based rules could mistake a field for a flag.
 */
export function scrubText(text: string): string {
  if (typeof text !== 'string' || text === '') return text;
  let s = text;
  for (const f of forms) if (s.includes(f)) s = s.split(f).join(MASK);
  return s.includes('@') ? redactUrl(s) : s;
}

/** The URL with its password (or lone user name) masked: http://user:***@host. */
export function redactUrl(url: string): string {
  return url.replace(URL_USERINFO, (_, scheme: string, info: string) => {
    const colon = info.indexOf(':');
    return `${scheme}${colon >= 0 ? `${info.slice(0, colon)}:${MASK}` : MASK}@`;
  });
}

function quoted(v: string): boolean {
  return v.length >= 2 && (v[0] === "'" || v[0] === '"');
}

export interface RedactOptions {
  /**
   * Also mask `'name': 'value'` pairs (configuration dumps in server logs).
   * Off for this tool's own serialized JSON, whose fields (tokenSource...)
   * are never secrets.
   */
  pairs?: boolean;
}

/** The text with every secret (see the top of this file) masked. */
export function redactText(text: string, o: RedactOptions = {}): string {
  if (typeof text !== 'string' || text === '') return text;
  let s = scrubText(text);
  if (s.includes('-')) {
    s = s.replace(FLAG, (all, pre: string, flag: string, sep: string, value: string) =>
      isSecretName(flag) && value !== MASK
        ? `${pre}${flag}${sep}${quoted(value) ? `${value[0]}${MASK}${value[0]}` : MASK}`
        : all,
    );
  }
  if (s.includes('=')) {
    s = s.replace(ASSIGN, (all, pre: string, name: string, value: string) =>
      (name.includes('_') || name === name.toUpperCase()) && isSecretName(name) && value !== MASK
        ? `${pre}${name}=${quoted(value) ? `${value[0]}${MASK}${value[0]}` : MASK}`
        : all,
    );
  }
  if (o.pairs) {
    s = s.replace(PAIR, (all, q: string, name: string, sep: string, vq: string, value: string) =>
      isSecretName(name) && value !== '' && value !== MASK ? `${q}${name}${q}${sep}${vq}${MASK}${vq}` : all,
    );
  }
  return s;
}

/** argv with the values of secret flags (`--api-key X`, `--hf-token=X`), `NAME=X` words and URL passwords masked. */
export function redactArgv(argv: readonly string[]): string[] {
  const out = argv.map((a) => redactText(a));
  for (let i = 0; i < out.length; i++) {
    const a = out[i]!;
    const eq = a.indexOf('=');
    if (/^--?[A-Za-z]/.test(a) && eq < 0 && isSecretName(a) && i + 1 < out.length && !out[i + 1]!.startsWith('-'))
      out[++i] = MASK;
    else if (/^--?[A-Za-z]/.test(a) && eq > 0 && isSecretName(a.slice(0, eq))) out[i] = `${a.slice(0, eq)}=${MASK}`;
  }
  return out;
}

/**
 * A deep copy with every string passed through redactText; with `keys`,
 * also every string under a secret-named key masked (foreign maps such as
 * SGLang's server args; not this tool's own records, where tokenSource is
 * no secret).
 */
export function redactDeep<T>(value: T, o: RedactOptions & { keys?: boolean } = {}): T {
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') return o.keys && key !== null && v !== '' && isSecretName(key) ? MASK : redactText(v, o);
    if (Array.isArray(v)) return v.map((x) => walk(x, null));
    if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, k);
      return out;
    }
    return v;
  };
  return walk(value, null) as T;
}

const MAX_FILE_BYTES = 512 * 1024 * 1024;

/**
 * Rewrites a text file that another process wrote (a server's log) with its
 * secrets masked, configuration dumps included. A missing file is fine; a
 * failure is reported through `note`, never thrown.
 */
export function redactFile(path: string, note: (m: string) => void = () => undefined): void {
  try {
    const size = statSync(path).size;
    if (size > MAX_FILE_BYTES) {
      note(`warning: ${path} is over ${MAX_FILE_BYTES >> 20} MB: not checked for secrets`);
      return;
    }
    const text = readFileSync(path, 'utf8');
    const clean = redactText(text, { pairs: true });
    if (clean === text) return;
    const tmp = `${path}.redact-${process.pid}`;
    writeFileSync(tmp, clean);
    renameSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      note(`warning: ${path} could not be checked for secrets: ${(err as Error).message}`);
  }
}

let consoleGuarded = false;

/**
 * From now on everything written to process.stdout and process.stderr goes
 * through redactText: the last line of defence for the CLI (messages from
 * any module, warnings, errors).
 */
export function guardConsole(): void {
  if (consoleGuarded) return;
  consoleGuarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
      if (typeof chunk === 'string') return write(redactText(chunk), ...rest);
      if (chunk instanceof Uint8Array) {
        const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
        const clean = redactText(text);
        return clean === text ? write(chunk, ...rest) : write(clean, ...rest.filter((r) => typeof r === 'function'));
      }
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
}
