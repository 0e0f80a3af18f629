// Error bodies in each server's shape. vLLM (>= 0.10.1) nests them:
// {"error":{message,type,param,code}}. SGLang's OpenAI routes use the flat
// ErrorResponse {"object":"error",message,type,param,code}; its native
// /generate answers {"error":{"message":...}}.
import type { SimFlavor } from './types.js';
import { ErrorCode, LoadgenError } from '../core/errors.js';

/** Which family of route produced the error (SGLang shapes differ per family). */
export type RouteFamily = 'openai' | 'generate' | 'other';

/** A request-level error that becomes an HTTP error response. */
export class SimHttpError extends LoadgenError {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly type?: string,
  ) {
    super(ErrorCode.SimHttp, message);
  }
}

const TYPES: Record<number, string> = {
  400: 'BadRequestError',
  404: 'NotFoundError',
  405: 'MethodNotAllowedError',
  413: 'BadRequestError',
  429: 'TooManyRequestsError',
  500: 'InternalServerError',
  501: 'NotImplementedError',
  503: 'ServiceUnavailableError',
};

export function errorType(status: number): string {
  return TYPES[status] ?? 'InternalServerError';
}

/** The JSON body of an error response. */
export function errorBody(
  flavor: SimFlavor,
  family: RouteFamily,
  status: number,
  message: string,
  param: string | null = null,
  type: string = errorType(status),
): object {
  if (flavor === 'vllm') return { error: { message, type, param, code: status } };
  if (family === 'generate') return { error: { message } };
  return { object: 'error', message, type, param, code: status };
}

/** The payload of a `data:` error event inside a 200 stream. */
export function streamErrorPayload(flavor: SimFlavor, family: RouteFamily, status: number, message: string): object {
  if (flavor === 'vllm') return { error: { message, type: errorType(status), param: null, code: status } };
  if (family === 'generate') return { error: { message } };
  return { error: { object: 'error', message, type: errorType(status), param: null, code: status } };
}
