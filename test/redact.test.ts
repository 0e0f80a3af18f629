// The redaction rule (lib/core/redact.ts) and endpoint URL credentials sent as
// HTTP Basic authorization, against a real simulator that requires them.
import { afterEach, describe, expect, test } from 'vitest';

import {
  clearSecrets,
  isSecretName,
  redactArgv,
  redactDeep,
  redactText,
  redactUrl,
  registerSecret,
  scrubText,
} from '../lib/core/redact.js';
import { startSimulator } from '../lib/sim/index.js';
import { endpointRequestInfo, parseEndpointUrl, splitEndpointCredentials } from '../lib/sut/endpoint-url.js';
import { probeEndpoint } from '../lib/sut/probe.js';
import { MetricsScraper } from '../lib/metrics/scraper.js';

afterEach(() => clearSecrets());

describe('the rule', () => {
  test('secret names: TOKEN, KEY, SECRET, PASSWORD, AUTH, any case; token counts and tokenizers are not', () => {
    for (const n of [
      'HF_TOKEN',
      'OPENAI_API_KEY',
      'api-key',
      'apiKey',
      'AWS_SECRET_ACCESS_KEY',
      'DB_PASSWORD',
      'http_auth',
      'Authorization',
      '--hf-token',
    ])
      expect(isSecretName(n), n).toBe(true);
    for (const n of [
      'max_tokens',
      '--max-num-batched-tokens',
      '--tokenizer',
      'TOKENIZERS_PARALLELISM',
      'CUDA_VISIBLE_DEVICES',
      'model',
      '--budget-tokens',
      'tokenIds',
      'return_token_ids',
    ])
      expect(isSecretName(n), n).toBe(false);
  });

  test('flags, assignments, URLs and configuration dumps', () => {
    expect(redactText('vllm serve m --api-key sk-1 --port 8000')).toBe('vllm serve m --api-key *** --port 8000');
    expect(redactText("x --hf-token='a b' --max-tokens 5")).toBe("x --hf-token='***' --max-tokens 5");
    expect(redactText('HF_TOKEN=abc CUDA_VISIBLE_DEVICES=0 vllm')).toBe('HF_TOKEN=*** CUDA_VISIBLE_DEVICES=0 vllm');
    expect(redactText("Namespace(api_key='k9', tokenIds=tok_input) expected key=value")).toBe(
      "Namespace(api_key='***', tokenIds=tok_input) expected key=value",
    );
    expect(redactText('GET http://me:pw@h:8000/v1 failed')).toBe('GET http://me:***@h:8000/v1 failed');
    expect(redactUrl('https://tok@h/x')).toBe('https://***@h/x');
    expect(redactText(`non-default args: {'model': 'm', 'api_key': 'sk-9', 'max_tokens': 4}`, { pairs: true })).toBe(
      `non-default args: {'model': 'm', 'api_key': '***', 'max_tokens': 4}`,
    );
    // Without pairs (this tool's own JSON), field names are not read as secrets.
    expect(redactText('{"tokenSource": "token_ids"}')).toBe('{"tokenSource": "token_ids"}');
    expect(
      redactArgv([
        'run',
        '--api-key',
        'K1',
        '--api-key=K2',
        '--hf-token',
        'T',
        '--endpoint',
        'http://u:p@h',
        'X_TOKEN=v',
        '--tokenizer',
        't.json',
      ]),
    ).toEqual([
      'run',
      '--api-key',
      '***',
      '--api-key=***',
      '--hf-token',
      '***',
      '--endpoint',
      'http://u:***@h',
      'X_TOKEN=***',
      '--tokenizer',
      't.json',
    ]);
  });

  test('registered values are masked anywhere, escaped forms included', () => {
    registerSecret('s"e<c>r&t');
    expect(scrubText('a s"e<c>r&t b')).toBe('a *** b');
    expect(scrubText(JSON.stringify({ v: 'x s"e<c>r&t' }))).toBe('{"v":"x ***"}');
    expect(scrubText('s&quot;e&lt;c&gt;r&amp;t')).toBe('***');
    registerSecret('ab'); // too short to mask free text
    expect(scrubText('about')).toBe('about');
    expect(redactDeep({ a: ['x s"e<c>r&t'], n: 1, api_key: 'zzz' }, { keys: true })).toEqual({
      a: ['x ***'],
      n: 1,
      api_key: '***',
    });
  });
});

describe('endpoint URL credentials', () => {
  test('taken out of the URL, percent-decoded into Basic, and a malformed escape is one clear error', () => {
    const c = splitEndpointCredentials('http://us%40er:p%3Aw%25d@h:8000/v1');
    expect(c).toEqual({
      url: 'http://h:8000/v1',
      authorization: `Basic ${Buffer.from('us@er:p:w%d').toString('base64')}`,
    });
    expect(splitEndpointCredentials('http://h:8000')).toEqual({ url: 'http://h:8000', authorization: null });
    expect(() => splitEndpointCredentials('http://u:%zz@h')).toThrow(
      /^endpoint URL "http:\/\/\*\*\*@h": its user:password has a malformed %-escape$/,
    );
    expect(() => parseEndpointUrl('http://u:pw@h:8000/?q=1')).toThrow(
      'endpoint URL "http://u:***@h:8000/?q=1" must not have a query or fragment',
    );
    // The URL's own credentials replace a Bearer meant for every endpoint.
    expect(endpointRequestInfo('http://u:p@h', { authorization: 'Bearer k', x: '1' })).toEqual({
      url: 'http://h',
      headers: { x: '1', authorization: `Basic ${Buffer.from('u:p').toString('base64')}` },
      replaced: true,
    });
    expect(endpointRequestInfo('http://h', { authorization: 'Bearer k' })).toEqual({
      url: 'http://h',
      headers: { authorization: 'Bearer k' },
      replaced: false,
    });
  });

  test('probe and /metrics scrapes send them to a server that requires them; results show the URL without them', async () => {
    const sim = await startSimulator({
      requireAuthorization: `Basic ${Buffer.from('me:s3cret').toString('base64')}`,
      precisePacing: false,
    });
    try {
      const url = sim.url.replace('http://', 'http://me:s3cret@');
      const p = await probeEndpoint(url, { headers: { authorization: 'Bearer other' } });
      expect(p.healthy, p.error ?? '').toBe(true);
      expect(p.url).toBe(sim.url);
      const scraper = new MetricsScraper({ urls: [url], intervalMs: 0 });
      await scraper.scrapeAll();
      expect(scraper.series[0]!.failures).toBe(0);
      expect(sim.stats().unauthorized).toBe(0);
      // Without them: refused (the check above can fail).
      expect((await probeEndpoint(sim.url, { timeoutMs: 2000 })).healthy).toBe(false);
      expect(sim.stats().unauthorized).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  });
});
