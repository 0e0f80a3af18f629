// GPU pricing of a run's endpoints: a price per GPU-hour and a GPU count,
// one value for every endpoint or one per endpoint (in --endpoint order).
import { UsageError } from '../core/errors.js';

export interface PricingInput {
  /** $ per GPU-hour: one price, or one per endpoint. */
  gpuHourPrice?: number | readonly number[];
  /** GPUs behind each endpoint: one count, or one per endpoint (default 1). */
  gpusPerEndpoint?: number | readonly number[];
}

export interface EndpointPrice {
  gpus: number;
  pricePerGpuHour: number;
  /** gpus × price. */
  dollarsPerHour: number;
}

function perEndpoint(
  name: string,
  v: number | readonly number[] | undefined,
  n: number,
  dflt: number,
  integer: boolean,
): number[] {
  const list = v === undefined ? [dflt] : typeof v === 'number' ? [v] : [...v];
  for (const x of list) {
    const ok = typeof x === 'number' && Number.isFinite(x) && (integer ? Number.isSafeInteger(x) && x >= 1 : x >= 0);
    if (!ok)
      throw new UsageError(
        `${name} must be ${integer ? 'an integer >= 1' : 'a number >= 0'} (or a comma-separated list, one per endpoint), got ${String(x)}`,
      );
  }
  if (list.length === 1) return Array.from({ length: n }, () => list[0]);
  if (list.length !== n)
    throw new UsageError(
      `${name} has ${list.length} values for ${n} endpoint${n === 1 ? '' : 's'}: give one value, or one per endpoint`,
    );
  return list;
}

/** Prices per endpoint, or null when no price was given. */
export function resolvePricing(p: PricingInput | undefined, endpoints: number): EndpointPrice[] | null {
  if (!p || p.gpuHourPrice === undefined) {
    if (p?.gpusPerEndpoint !== undefined)
      perEndpoint('--gpus-per-endpoint', p.gpusPerEndpoint, Math.max(1, endpoints), 1, true);
    return null;
  }
  const n = Math.max(1, endpoints);
  const prices = perEndpoint('--gpu-hour-price', p.gpuHourPrice, n, 0, false);
  const gpus = perEndpoint('--gpus-per-endpoint', p.gpusPerEndpoint, n, 1, true);
  return prices.map((price, i) => ({ gpus: gpus[i], pricePerGpuHour: price, dollarsPerHour: gpus[i] * price }));
}

/** Parses a flag value: `2.5` or `2.5,3,3` (one per endpoint). */
export function parseNumberList(flag: string, text: string): number | number[] {
  const parts = text.split(',').map((s) => s.trim());
  const nums = parts.map((s) => (s === '' ? NaN : Number(s)));
  if (nums.some((x) => !Number.isFinite(x)))
    throw new UsageError(`${flag} ${JSON.stringify(text)}: expected a number or a comma-separated list of numbers`);
  return nums.length === 1 ? nums[0] : nums;
}
