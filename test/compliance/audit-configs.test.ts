// The built-in audit.config values, which tests a benchmark of ours needs,
// the verification keys, and the names a test is given by.
import { describe, expect, it } from 'vitest';

import {
  builtinAuditConfig,
  checkerModelNames,
  complianceTestsFor,
  parseComplianceTest,
  readAuditThresholds,
} from '../../lib/compliance/audit-configs.js';

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

describe('built-in audit.config files', () => {
  it('TEST06: sampled log of 100 queries, no minimum duration, no concatenation', () => {
    const c = builtinAuditConfig('TEST06', 'llama3_1-8b');
    expect(c.source).toBe('compliance/TEST06');
    expect(lines(c.text)).toEqual([
      '*.*.mode = 2',
      '*.*.accuracy_log_rng_seed = 720381539243781796',
      '*.*.accuracy_log_sampling_target = 100',
      '*.*.min_query_count = 100',
      '*.*.min_duration = 0',
      '*.*.sample_concatenate_permutation = 0',
    ]);
  });

  it("TEST04: the same sample (index 3) in every scenario; a benchmark's own lines are folded under '*'", () => {
    const plain = lines(builtinAuditConfig('TEST04', 'resnet50').text);
    expect(plain).toContain('*.Offline.performance_issue_same = 1');
    expect(plain).toContain('*.Server.performance_issue_same_index = 3');
    expect(plain).toContain('*.SingleStream.performance_issue_unique = 0');
    expect(plain.some((l) => l.includes('min_query_count'))).toBe(false);
    const sdxl = lines(builtinAuditConfig('TEST04', 'stable-diffusion-xl').text);
    expect(sdxl).toContain('*.Offline.min_query_count = 500');
    const wan = lines(builtinAuditConfig('TEST04', 'wan-2.2-t2v-a14b').text);
    expect(wan).toContain('*.SingleStream.min_query_count = 20');
  });

  it("TEST01: the benchmark's folder's sampling target; none without a benchmark", () => {
    expect(lines(builtinAuditConfig('TEST01', 'resnet50').text)).toContain('*.*.accuracy_log_sampling_target = 4096');
    expect(builtinAuditConfig('TEST01', '3d-unet').source).toBe('compliance/TEST01/3d-unet');
    expect(lines(builtinAuditConfig('TEST01', 'gptj').text)).toContain('*.*.accuracy_log_sampling_target = 4096');
    expect(() => builtinAuditConfig('TEST01', undefined)).toThrow(/--benchmark .* or --audit-config/);
    expect(() => builtinAuditConfig('TEST01', 'llama3_1-8b')).toThrow(/no folder for llama3_1-8b/);
  });

  it('TEST07 and TEST09: every sample once, with the thresholds the verification reads', () => {
    const t7 = builtinAuditConfig('TEST07', 'gpt-oss-120b').text;
    expect(lines(t7)).toContain('*.*.min_query_count = 990');
    expect(lines(t7)).toContain('*.*.performance_issue_unique = 1');
    expect(readAuditThresholds(t7)).toEqual({ test07AccuracyThreshold: 60.698 });
    const t9 = builtinAuditConfig('TEST09', 'gpt-oss-120b-interactive').text;
    expect(lines(t9)).toContain('*.*.min_query_count = 6396');
    expect(readAuditThresholds(t9)).toEqual({ test09MinOutputTokens: 1150.38, test09MaxOutputTokens: 1406.02 });
    expect(() => builtinAuditConfig('TEST09', undefined)).toThrow(/depends on the benchmark/);
  });
});

describe('which tests a benchmark needs', () => {
  it("maps our mlperf.conf keys to the checker's names", () => {
    expect(checkerModelNames('llama3_1-8b')[0]).toBe('llama3.1-8b');
    expect(checkerModelNames('resnet50')[0]).toBe('resnet');
    expect(complianceTestsFor('llama3_1-8b')).toEqual(['TEST06']);
    expect(complianceTestsFor('llama2-70b')).toEqual(['TEST06']);
    expect(complianceTestsFor('gpt-oss-120b')).toEqual(['TEST07', 'TEST09']);
    // Interactive is a scenario of the base model for the v6.1 checker.
    expect(complianceTestsFor('gpt-oss-120b-interactive')).toEqual(['TEST07', 'TEST09']);
    expect(complianceTestsFor('deepseek-r1-interactive')).toEqual(['TEST06']);
    expect(complianceTestsFor('resnet50')).toEqual(['TEST01', 'TEST04']);
    expect(complianceTestsFor('bert')).toEqual(['TEST01']);
    expect(complianceTestsFor('mixtral-8x7b')).toEqual([]);
  });

  it('parses test names in any case, with or without the TEST prefix', () => {
    expect(parseComplianceTest('test06')).toBe('TEST06');
    expect(parseComplianceTest('1')).toBe('TEST01');
    expect(() => parseComplianceTest('TEST05')).toThrow(/unknown compliance test "TEST05"/);
    expect(() => parseComplianceTest('TEST08')).toThrow(/dlrm-v3/);
  });
});

describe('the verification keys of an audit.config', () => {
  it('reads the last key part, drops comments after the value, skips lines that are not settings', () => {
    const t = [
      '# a comment',
      'gpt-oss-120b.Offline.test09_min_output_tokens = 10.5 # lower',
      '*.*.test09_max_output_tokens=20',
      'test07_accuracy_threshold = 5',
      '*.*.mode = 2',
    ].join('\n');
    expect(readAuditThresholds(t)).toEqual({ test09MinOutputTokens: 10.5, test09MaxOutputTokens: 20 });
  });
});
