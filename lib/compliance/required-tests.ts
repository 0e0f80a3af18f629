// Which compliance tests a benchmark needs, as MLPerf's submission checker v6.1
// decides it (tools/submission/submission_checker/constants.py, the
// models_TEST0x lists of the v6.1 configuration; restated, not copied). The
// compliance command and the submission pre-check both read this one table.

/** A compliance test of MLPerf Inference (the folder name under compliance/ and in a submission). */
export type ComplianceTestName = 'TEST01' | 'TEST04' | 'TEST06' | 'TEST07' | 'TEST08' | 'TEST09';

export const COMPLIANCE_TESTS: readonly ComplianceTestName[] = [
  'TEST01',
  'TEST04',
  'TEST06',
  'TEST07',
  'TEST08',
  'TEST09',
];

// The v6.1 checker's lists, by test.
const MODELS_BY_TEST: Record<ComplianceTestName, readonly string[]> = {
  TEST01: [
    'resnet',
    'bert-99',
    'bert-99.9',
    '3d-unet-99',
    '3d-unet-99.9',
    'stable-diffusion-xl',
    'rgat',
    'whisper',
    'yolo-99',
    'yolo-95',
  ],
  TEST04: ['resnet', 'stable-diffusion-xl', 'wan-2.2-t2v-a14b'],
  TEST06: [
    'llama2-70b-99.9',
    'llama2-70b-interactive-99',
    'llama2-70b-interactive-99.9',
    'llama3.1-8b',
    'llama3.1-8b-interactive',
    'deepseek-r1',
  ],
  TEST07: ['gpt-oss-120b'],
  TEST08: ['dlrm-v3'],
  TEST09: ['gpt-oss-120b', 'e2e-rag-qna'],
};

/** The compliance tests the v6.1 submission checker requires for `benchmark` (in test order; empty when none). */
export function requiredComplianceTests(benchmark: string): ComplianceTestName[] {
  return COMPLIANCE_TESTS.filter((t) => MODELS_BY_TEST[t].includes(benchmark));
}

/** Whether `name` is a compliance test's name (TEST01...TEST09 as the checker knows them). */
export function isComplianceTestName(name: string): name is ComplianceTestName {
  return (COMPLIANCE_TESTS as readonly string[]).includes(name);
}
