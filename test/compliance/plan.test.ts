// `loadgen compliance` flags → runCompliance options: each test's own flags
// are refused on the other tests, with the flag named; the run's flags go
// through planRun as for `loadgen run`.
import { describe, expect, it } from 'vitest';

import { DEFAULT_COMPLIANCE_DIR, planCompliance } from '../../lib/cli/compliance-command.js';

describe('planCompliance', () => {
  it("turns the flags into the test's options, with the run's options from planRun", () => {
    const p = planCompliance('test01', {
      scenario: 'offline',
      set: ['min_duration=1000'],
      referenceRun: 'perf',
      accuracyRun: 'acc',
      dtype: 'int32',
    });
    expect(p.options.test).toBe('TEST01');
    expect(p.options.run.scenario).toBe('Offline');
    expect(p.options.run.outdir).toBe(DEFAULT_COMPLIANCE_DIR);
    expect(p.options.run.settings).toMatchObject({ minDurationMs: 1000 });
    expect(p.options).toMatchObject({ referenceRun: 'perf', accuracyRun: 'acc', test01Dtype: 'int32' });
    const t6 = planCompliance('TEST06', { scenario: 'Server', dtype: 'int64', eosTokenId: '128009' });
    expect(t6.options).toMatchObject({ tokenDtype: 'int64', eosTokenId: 128009 });
    const t9 = planCompliance('9', { scenario: 'Offline', minOutputTokens: '10', maxOutputTokens: '20.5' });
    expect(t9.options).toMatchObject({ test: 'TEST09', minOutputTokens: 10, maxOutputTokens: 20.5 });
    const t7 = planCompliance('TEST07', {
      scenario: 'Offline',
      tokenizer: 'tok.json',
      accuracyThreshold: '50',
      scoreMetric: 'rouge1',
    });
    expect(t7.options).toMatchObject({ tokenizer: 'tok.json', accuracyThreshold: 50, scoreMetric: 'rouge1' });
  });

  it("refuses a test's flags on another test, --mode, and bad values", () => {
    expect(() => planCompliance('TEST06', { scenario: 'Server', referenceRun: 'x' })).toThrow(
      /--reference-run applies to TEST01 and TEST04/,
    );
    expect(() => planCompliance('TEST04', { scenario: 'Server', accuracyRun: 'x' })).toThrow(
      /--accuracy-run applies to TEST01/,
    );
    expect(() => planCompliance('TEST01', { scenario: 'Server', dtype: 'int16' })).toThrow(/TEST01 compares as byte/);
    expect(() => planCompliance('TEST09', { scenario: 'Server', dtype: 'int32' })).toThrow(/--dtype applies to/);
    expect(() => planCompliance('TEST01', { scenario: 'Server', eosTokenId: '2' })).toThrow(/applies to TEST06/);
    expect(() => planCompliance('TEST06', { scenario: 'Server', eosTokenId: '2.5' })).toThrow(/must be an integer/);
    expect(() => planCompliance('TEST06', { scenario: 'Server', tokenizer: 't.json' })).toThrow(
      /--tokenizer applies to TEST07/,
    );
    expect(() => planCompliance('TEST06', { scenario: 'Server', accuracyThreshold: '1' })).toThrow(/apply to TEST07/);
    expect(() => planCompliance('TEST06', { scenario: 'Server', minOutputTokens: '1' })).toThrow(/apply to TEST09/);
    expect(() => planCompliance('TEST09', { scenario: 'Server', maxOutputTokens: 'many' })).toThrow(
      /--max-output-tokens "many": expected a number/,
    );
    expect(() => planCompliance('TEST06', { scenario: 'Server', mode: 'performance' })).toThrow(
      /--mode is set by the test/,
    );
    expect(() => planCompliance('TEST06', {})).toThrow(/--scenario is required/);
  });
});
