// Why an attempt or a sample failed, and whether another attempt may help:
// the failures the driver decides itself, and the classification of what an
// attempt came back with (an HTTP status, or a network error from undici).
import { errorMessageOf } from './wire/openai-chunks.js';

/** Why an attempt failed, and whether another attempt may help. */
export interface Failure {
  kind: string;
  message: string;
  retryable: boolean;
  /** Counts against the endpoint's circuit breaker. */
  endpointFault: boolean;
  retryAfterMs: number;
}

export const CLOSED: Failure = {
  kind: 'closed',
  message: 'the adapter was closed',
  retryable: false,
  endpointFault: false,
  retryAfterMs: 0,
};
export const SUPERSEDED: Failure = {
  kind: 'superseded',
  message: 'a newer test started',
  retryable: false,
  endpointFault: false,
  retryAfterMs: 0,
};

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** A refusal's Retry-After (in seconds) as ms; `current` when it has none. */
export function retryAfterMsOf(rawHeaders: Buffer[] | string[], current: number): number {
  let ms = current;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (String(rawHeaders[i]).toLowerCase() === 'retry-after') {
      const s = Number(String(rawHeaders[i + 1]));
      if (s >= 0) ms = s * 1000;
    }
  }
  return ms;
}

/** A non-200 answer: its status and the server's message; retried when the status says the server may recover. */
export function httpFailure(status: number, bodyParts: Buffer[], retryAfterMs: number): Failure {
  let message = `HTTP ${status}`;
  if (bodyParts.length > 0) {
    const text = Buffer.concat(bodyParts).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const m = errorMessageOf(parsed);
    message += `: ${m ?? text.slice(0, 300)}`;
  }
  const retryable = RETRYABLE_STATUS.has(status);
  return { kind: `http-${status}`, message, retryable, endpointFault: retryable, retryAfterMs };
}

/** A network error (or our own abort, which then says why). */
export function networkFailure(err: Error, abortReason: string | null, abortKind: string): Failure {
  const code = (err as { code?: string }).code ?? '';
  if (abortReason !== null)
    return { kind: abortKind, message: abortReason, retryable: false, endpointFault: false, retryAfterMs: 0 };
  const message = err.message || code || 'network error';
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { kind: 'connect-timeout', message, retryable: true, endpointFault: true, retryAfterMs: 0 };
    case 'UND_ERR_HEADERS_TIMEOUT':
      return { kind: 'first-byte-timeout', message, retryable: true, endpointFault: true, retryAfterMs: 0 };
    case 'UND_ERR_BODY_TIMEOUT':
      return { kind: 'idle-timeout', message, retryable: true, endpointFault: true, retryAfterMs: 0 };
    case 'ECONNREFUSED':
      return { kind: 'connection-refused', message, retryable: true, endpointFault: true, retryAfterMs: 0 };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { kind: 'connection-reset', message, retryable: true, endpointFault: true, retryAfterMs: 0 };
    case 'UND_ERR_DESTROYED':
    case 'UND_ERR_CLIENT_DESTROYED':
      return { kind: 'closed', message, retryable: false, endpointFault: false, retryAfterMs: 0 };
    default:
      return {
        kind: 'network-error',
        message: code ? `${code}: ${message}` : message,
        retryable: true,
        endpointFault: true,
        retryAfterMs: 0,
      };
  }
}
