import { afterAll, describe, expect, it } from 'vitest';
import { DATASET_PRESETS, DatasetError, datasetPreset, openDataset, samplingPreset } from '../../lib/dataset/index.js';
import { cnnRows, tempDir, writeJson, writeJsonl, writeParquet } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('MLPerf dataset presets', () => {
  it('llama3_1-8b: tok_input, the instruction template as text, output as reference, 128 tokens', async () => {
    const rows = cnnRows(4);
    const path = writeJson(tmp.file('cnn_eval.json'), rows);
    const d = await openDataset(path, { preset: 'llama3_1-8b' });
    expect(d.name).toBe('llama3_1-8b');
    expect(d.preset?.name).toBe('llama3_1-8b');
    expect(d.columns).toEqual({ tokenIds: 'tok_input', reference: 'output' });
    expect(d.textTemplate).toEqual({ column: 'instruction', key: 'llama' });
    const p = d.prompt(2);
    expect(Array.from(p.tokenIds!)).toEqual(rows[2]!.tok_input);
    expect(p.text).toBe(
      `In very brief sentences, summarize the following news article. Only return the summary.\nArticle: ${rows[2]!.input as string}\nSummary: `,
    );
    expect(p.reference).toBe('Highlights 2');
    expect(p.maxTokens).toBe(128);
    expect(d.notes.join(' ')).toMatch(/instruction\.llama/);
  });

  it('llama3_1-8b without the instruction column uses the input column as is', async () => {
    const rows = cnnRows(2).map(({ instruction: _i, ...r }) => r);
    const d = await openDataset(writeJson(tmp.file('noinst.json'), rows), { preset: 'llama3.1-8b' });
    expect(d.columns).toEqual({ tokenIds: 'tok_input', text: 'input', reference: 'output' });
    expect(d.textTemplate).toBeUndefined();
    expect(d.prompt(0).text).toBe(rows[0]!.input);
  });

  it('aliases: llama3.1-8b, -interactive suffix, case', () => {
    expect(datasetPreset('llama3.1-8b').name).toBe('llama3_1-8b');
    expect(datasetPreset('LLAMA2-70B-interactive').name).toBe('llama2-70b');
    expect(datasetPreset('llama3_1-8b-edge').files).toEqual(['sample_cnn_eval_5000.json']);
    expect(() => datasetPreset('gpt-5')).toThrow(DatasetError);
    expect(() => datasetPreset('gpt-5')).toThrow(/known presets: .*llama3_1-8b.*deepseek-r1/);
  });

  it('llama2-70b: formatted input as text, system prompt + question as messages, 1024 tokens', async () => {
    const path = writeParquet(tmp.file('orca.parquet'), [
      { name: 'id', type: 'STRING', data: ['a', 'b'] },
      { name: 'system_prompt', type: 'STRING', data: ['You are helpful.', ''] },
      { name: 'question', type: 'STRING', data: ['Q1', 'Q2'] },
      { name: 'output', type: 'STRING', data: ['A1', 'A2'] },
      { name: 'input', type: 'STRING', data: ['[INST] <<SYS>>...Q1 [/INST]', '[INST] Q2 [/INST]'] },
      {
        name: 'tok_input',
        type: 'LIST_INT64',
        data: [
          [1n, 518n],
          [1n, 519n],
        ],
      },
    ]);
    const d = await openDataset(path, { preset: 'llama2-70b' });
    expect(d.columns).toEqual({
      tokenIds: 'tok_input',
      text: 'input',
      system: 'system_prompt',
      user: 'question',
      reference: 'output',
    });
    expect(d.prompt(0)).toEqual({
      tokenIds: new Int32Array([1, 518]),
      text: '[INST] <<SYS>>...Q1 [/INST]',
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'Q1' },
      ],
      maxTokens: 1024,
      reference: 'A1',
    });
    expect(d.prompt(1).messages).toEqual([{ role: 'user', content: 'Q2' }]);
  });

  it('deepseek-r1: the endpoints Parquet (input_tokens, ground_truth, no text_input)', async () => {
    const path = writeParquet(tmp.file('deepseek_r1_eval.parquet'), [
      { name: 'input_tokens', type: 'LIST_INT64', data: [[0n, 5n, 6n]] },
      { name: 'ground_truth', type: 'STRING', data: ['42'] },
      { name: 'dataset', type: 'STRING', data: ['aime'] },
      { name: 'question', type: 'STRING', data: ['What is 6*7?'] },
    ]);
    const d = await openDataset(path, { preset: 'deepseek-r1' });
    // `question` is not auto-detected: the preset names the prompt columns.
    expect(d.columns).toEqual({ tokenIds: 'input_tokens', reference: 'ground_truth' });
    expect(d.prompt(0)).toEqual({ tokenIds: new Int32Array([0, 5, 6]), maxTokens: 20000, reference: '42' });
  });

  it('deepseek-r1: the converted pickle (tok_input, text_input)', async () => {
    const path = writeJsonl(tmp.file('ds.jsonl'), [
      { text_input: 'Solve x', tok_input: [0, 9], ground_truth: 'x=1', ref_output: 'long' },
    ]);
    const d = await openDataset(path, { preset: 'deepseek-r1', maxTokens: 3000 });
    expect(d.prompt(0)).toEqual({
      tokenIds: new Int32Array([0, 9]),
      text: 'Solve x',
      maxTokens: 3000,
      reference: 'x=1',
    });
  });

  it('gpt-oss-120b: tok_input (older files), ground_truth, 32768 tokens', async () => {
    const path = writeParquet(tmp.file('acc_eval_inputs.parquet'), [
      { name: 'tok_input', type: 'LIST_INT32', data: [[200006, 17360]] },
      { name: 'dataset', type: 'STRING', data: ['gpqa'] },
      { name: 'ground_truth', type: 'STRING', data: ['B'] },
    ]);
    const d = await openDataset(path, { preset: 'gpt-oss-120b' });
    expect(d.prompt(0)).toEqual({ tokenIds: new Int32Array([200006, 17360]), maxTokens: 32768, reference: 'B' });
  });

  it('mixtral-8x7b: gt_output is the reference when present', async () => {
    const path = writeJsonl(tmp.file('mixtral.jsonl'), [
      {
        dataset: 'GSM8K',
        input: '<s> [INST] q [/INST]',
        tok_input: [1, 733],
        ref_output: 'model says 3',
        gt_output: '3',
      },
    ]);
    const d = await openDataset(path, { preset: 'mixtral-8x7b' });
    expect(d.columns.reference).toBe('gt_output');
    expect(d.prompt(0).maxTokens).toBe(1024);
  });

  it('dummy: endpoints dummy_1k.jsonl', async () => {
    const path = writeJsonl(tmp.file('dummy_1k.jsonl'), [{ text_input: 'hi', ref_output: 'there' }]);
    const d = await openDataset(path, { preset: 'dummy' });
    expect(d.prompt(0)).toEqual({ text: 'hi', reference: 'there', maxTokens: 128 });
  });

  it('an explicit mapping overrides the preset role by role; per-row max tokens win', async () => {
    const path = writeJsonl(tmp.file('override.jsonl'), [
      { tok_input: [1], input: 'i', output: 'o', summary: 's', max_tokens: 5 },
      { tok_input: [2], input: 'j', output: 'p', summary: 't' },
    ]);
    const d = await openDataset(path, { preset: 'llama3_1-8b', mapping: { reference: 'summary', tokenIds: null } });
    expect(d.prompt(0)).toEqual({ text: 'i', reference: 's', maxTokens: 5 });
    expect(d.prompt(1)).toEqual({ text: 'j', reference: 't', maxTokens: 128 });
    expect((await openDataset(path, { preset: 'llama3_1-8b', maxTokens: 64 })).prompt(1).maxTokens).toBe(64);
  });

  it('a preset whose prompt columns are all missing says so', async () => {
    const path = writeJsonl(tmp.file('wrong.jsonl'), [{ text_input: 'x' }]);
    await expect(openDataset(path, { preset: 'gpt-oss-120b' })).rejects.toThrow(
      /no prompt column found \(looked for the preset 'gpt-oss-120b' columns\).*available columns: 'text_input'/,
    );
  });
});

describe('samplingPreset', () => {
  it('gives the reference harness values, fields absent when not sent', () => {
    expect(samplingPreset('llama3_1-8b')).toEqual({
      maxTokens: 128,
      minTokens: 1,
      temperature: 0,
      topP: 1,
      topK: 1,
      seed: 42,
    });
    expect(samplingPreset('llama3.1-8b-interactive')).toEqual(samplingPreset('llama3_1-8b'));
    expect(samplingPreset('llama3_1-8b-edge')).toEqual(samplingPreset('llama3_1-8b'));
    expect(samplingPreset('llama2-70b')).toEqual({ maxTokens: 1024, minTokens: 1, temperature: 0 });
    expect(samplingPreset('mixtral-8x7b')).toEqual({ maxTokens: 1024, minTokens: 2, temperature: 0 });
    expect(samplingPreset('deepseek-r1')).toEqual({ maxTokens: 20000, temperature: 0, topP: 1, seed: 42 });
    expect(samplingPreset('gpt-oss-120b')).toEqual({ maxTokens: 32768, temperature: 1, topK: -1, topP: 1 });
    expect(samplingPreset('dummy')).toEqual({});
    expect(() => samplingPreset('resnet50')).toThrow(DatasetError);
  });

  it('returns a copy; the table is frozen', () => {
    const s = samplingPreset('deepseek-r1');
    s.temperature = 0.7;
    expect(samplingPreset('deepseek-r1').temperature).toBe(0);
    expect(Object.isFrozen(DATASET_PRESETS)).toBe(true);
    expect(Object.isFrozen(DATASET_PRESETS['llama2-70b'])).toBe(true);
    for (const p of Object.values(DATASET_PRESETS)) {
      if (p.sampling.maxTokens !== undefined) expect(p.sampling.maxTokens).toBe(p.maxTokens);
    }
  });
});
