// Warm-up: a few short requests to each fresh server before the measured
// run, so first-request costs (CUDA graph and kernel selection, allocator
// growth, tokenizer start) do not land in the first measured samples.
// Nothing here is measured or recorded beyond whether it worked.

export interface WarmupResult {
  sent: number;
  ok: number;
  /** The first failure, when there was one. */
  error: string | null;
}

/** Sends `requests` small completions (token-id prompt, 8 tokens out) one after another. */
export async function warmUp(
  baseUrl: string,
  model: string,
  requests: number,
  headers: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<WarmupResult> {
  let ok = 0;
  let error: string | null = null;
  for (let i = 0; i < requests; i++) {
    try {
      const res = await fetch(`${baseUrl}/v1/completions`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        // Token ids: no tokenizer dependence; ids 1..16 exist in every vocabulary.
        body: JSON.stringify({
          model,
          prompt: Array.from({ length: 16 }, (_, k) => k + 1),
          max_tokens: 8,
          temperature: 0,
        }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (res.status === 200) ok++;
      else error ??= `HTTP ${res.status}: ${text.slice(0, 200)}`;
    } catch (err) {
      error ??= (err as Error).message;
    }
  }
  return { sent: requests, ok, error };
}
