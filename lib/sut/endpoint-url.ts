// An endpoint's base URL as users write it (http://gpu1:8000, with or without
// /v1, maybe behind a path prefix) split into the origin undici connects to
// and the prefix put before API paths. Credentials in it (http://user:pw@host)
// are taken out: sent as HTTP Basic authorization, never shown.
import { MASK, redactUrl, registerSecret } from '../core/redact.js';
import { ErrorCode, LoadgenError } from '../core/errors.js';

export class EndpointError extends LoadgenError {
  constructor(message: string) {
    super(ErrorCode.Endpoint, message);
  }
}

export function parseEndpointUrl(url: string): { origin: string; prefix: string } {
  let u: URL;
  const shown = JSON.stringify(redactUrl(String(url)));
  try {
    u = new URL(url);
  } catch {
    throw new EndpointError(`endpoint URL ${shown} is not a URL (expected e.g. http://gpu1:8000)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new EndpointError(`endpoint URL ${shown} must start with http:// or https://`);
  }
  if (u.search || u.hash) throw new EndpointError(`endpoint URL ${shown} must not have a query or fragment`);
  let prefix = u.pathname.replace(/\/+$/, '');
  if (prefix.endsWith('/v1')) prefix = prefix.slice(0, -3);
  return { origin: u.origin, prefix };
}

export interface EndpointCredentials {
  /** The URL without its user:password@ (as written otherwise): what requests, records and messages use. */
  url: string;
  /** `Basic base64(user:password)` (percent-decoded) when the URL had credentials, else null. */
  authorization: string | null;
}

const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i;

/**
 * Takes the credentials out of an endpoint URL: `http://user:pw@host:8000/v1`
 * → `http://host:8000/v1` and `Basic dXNlcjpwdw==`. The password (raw and
 * decoded) and the header become secrets (lib/core/redact.ts): masked wherever
 * they would be printed or written.
 */
export function splitEndpointCredentials(url: string): EndpointCredentials {
  const m = USERINFO.exec(String(url));
  if (!m) return { url, authorization: null };
  const bare = m[1] + url.slice(m[0].length);
  const info = m[2]!;
  const colon = info.indexOf(':');
  const rawUser = colon >= 0 ? info.slice(0, colon) : info;
  const rawPass = colon >= 0 ? info.slice(colon + 1) : '';
  let user: string;
  let pass: string;
  try {
    user = decodeURIComponent(rawUser);
    pass = decodeURIComponent(rawPass);
  } catch {
    throw new EndpointError(
      `endpoint URL ${JSON.stringify(`${m[1]}${MASK}@${url.slice(m[0].length)}`)}: its user:password has a malformed %-escape`,
    );
  }
  const authorization = `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}`;
  for (const secret of [rawPass, pass, authorization, authorization.slice(6)]) registerSecret(secret);
  if (colon < 0) {
    registerSecret(rawUser);
    registerSecret(user);
  }
  return { url: bare, authorization };
}

/**
 * An endpoint's URL without credentials and the headers to send it: the
 * given ones, with its URL's user:password as `Authorization: Basic` in
 * place of any Authorization among them (the endpoint's own credentials win
 * over an API key meant for every endpoint); `replaced` says one was.
 */
export function endpointRequestInfo(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): { url: string; headers: Record<string, string>; replaced: boolean } {
  const c = splitEndpointCredentials(url);
  if (!c.authorization) return { url: c.url, headers: { ...headers }, replaced: false };
  const out: Record<string, string> = {};
  let replaced = false;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === 'authorization') replaced = true;
    else out[k] = v;
  }
  out.authorization = c.authorization;
  return { url: c.url, headers: out, replaced };
}
