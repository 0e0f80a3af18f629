// An endpoint's base URL as users write it (http://gpu1:8000, with or without
// /v1, maybe behind a path prefix) split into the origin undici connects to
// and the prefix put before API paths.
import { ErrorCode, LoadgenError } from '../core/errors.js';

export class EndpointError extends LoadgenError {
  constructor(message: string) {
    super(ErrorCode.Endpoint, message);
  }
}

export function parseEndpointUrl(url: string): { origin: string; prefix: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new EndpointError(`endpoint URL ${JSON.stringify(url)} is not a URL (expected e.g. http://gpu1:8000)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new EndpointError(`endpoint URL ${JSON.stringify(url)} must start with http:// or https://`);
  }
  if (u.search || u.hash) throw new EndpointError(`endpoint URL ${JSON.stringify(url)} must not have a query or fragment`);
  let prefix = u.pathname.replace(/\/+$/, '');
  if (prefix.endsWith('/v1')) prefix = prefix.slice(0, -3);
  return { origin: u.origin, prefix };
}
