// The decimal x-request-id of a sample, without V8's number-to-string cache.
// String(n) stores the string of every new number in an isolate-wide cache
// (up to 16k entries), which keeps it alive through two scavenges: at 9,400
// requests/s per worker every id string was promoted to the old generation,
// ~0.3 MB/s, a quarter of what the worker promoted, and so fed its
// mark-compacts (pauses of 2–13 ms every ~4 s). Ids of one test are
// consecutive, so the digits above the last three change once per thousand
// requests and only those go through String().

const LOW_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

let highKey = -1;
let highDigits = '';

export function requestIdString(id: number): string {
  if (!Number.isSafeInteger(id) || id < 1000) return String(id);
  const high = Math.floor(id / 1000);
  if (high !== highKey) {
    highKey = high;
    highDigits = String(high);
  }
  return highDigits + LOW_DIGITS[id - high * 1000];
}
