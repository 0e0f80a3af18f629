import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DatasetError, openDataset, type LoadedDataset } from '../../lib/dataset/index.js';
import { jsonArraySource } from '../../lib/dataset/json.js';
import { cnnRows, tempDir, writeGz, writeJson, writeJsonl, writeParquet } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** The DatasetError a promise rejects with. */
async function datasetError(p: Promise<unknown>): Promise<DatasetError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(DatasetError);
    return e as DatasetError;
  }
  throw new Error('expected a DatasetError');
}

function ids(d: LoadedDataset, i: number): number[] {
  return Array.from(d.prompt(i).tokenIds ?? []);
}

describe('JSON (one top-level array)', () => {
  it('reads a cnn_eval.json-like file: token ids as Int32Array, auto-detected columns', async () => {
    const path = writeJson(tmp.file('cnn.json'), cnnRows(5));
    const d = await openDataset(path);
    expect(d.size).toBe(5);
    expect(d.format).toBe('json');
    expect(d.name).toBe('cnn.json');
    expect(d.columns).toEqual({ tokenIds: 'tok_input', text: 'input', reference: 'output' });
    expect(d.availableColumns).toEqual(['instruction', 'input', 'tok_input', 'output']);
    const p = d.prompt(3);
    expect(p.tokenIds).toBeInstanceOf(Int32Array);
    expect(ids(d, 3)).toEqual([128000, 644, 1633, 10015, 23719, 11, 103]);
    expect(p.text).toBe(cnnRows(5)[3]!.input);
    expect(p.reference).toBe('Highlights 3');
    expect(p.maxTokens).toBeUndefined();
    expect(p.messages).toBeUndefined();
  });

  it('handles compact JSON, a BOM, an empty-object-free layout and element boundaries across read chunks', async () => {
    // Rows large enough that elements straddle the 1 MiB stream chunks.
    const rows = Array.from({ length: 40 }, (_, i) => ({
      prompt: `p${i} ` + 'x\\"}]'.repeat(20000) + ' ü',
      input_ids: Array.from({ length: 3000 }, (_, k) => (k * 7 + i) % 50000),
    }));
    const path = tmp.file('big.json');
    writeFileSync(path, '\ufeff' + JSON.stringify(rows));
    const d = await openDataset(path);
    expect(d.size).toBe(40);
    for (const i of [0, 17, 39]) {
      expect(d.prompt(i).text).toBe(rows[i]!.prompt);
      expect(ids(d, i)).toEqual(rows[i]!.input_ids);
    }
  });

  it('splits elements correctly whatever the read-chunk boundaries (escapes, brackets in strings)', async () => {
    const rows = [
      { s: 'a\\', t: [1, [2, {}]], u: '}]{["' },
      { s: '\\"\\', n: null, e: {}, k: 'ü€𝄞' },
      { s: '', deep: { a: [{ b: '\\"}' }] } },
    ];
    const path = tmp.file('tricky.json');
    writeFileSync(path, ' [ ' + rows.map((r) => JSON.stringify(r)).join(' ,\n') + ' ] \n');
    for (let chunkSize = 1; chunkSize <= 16; chunkSize++) {
      const got: unknown[] = [];
      for await (const { value, at } of jsonArraySource(path, false, chunkSize).rows({})) {
        expect(at).toBe(got.length);
        got.push(value);
      }
      expect(got).toEqual(rows);
    }
  });

  it('reads gzipped JSON', async () => {
    const path = writeGz(tmp.file('cnn.json.gz'), JSON.stringify(cnnRows(3), null, 4));
    const d = await openDataset(path);
    expect(d.size).toBe(3);
    expect(ids(d, 2).at(-1)).toBe(102);
  });

  it('reads a .json file that is really JSON lines, and says so', async () => {
    const path = writeJsonl(tmp.file('lines.json'), [{ prompt: 'a' }, { prompt: 'b' }]);
    const d = await openDataset(path);
    expect(d.format).toBe('jsonl');
    expect(d.prompt(1).text).toBe('b');
    expect(d.notes.join(' ')).toMatch(/JSON lines/);
  });

  it('rejects a pretty-printed single object with a clear error', async () => {
    const path = writeJson(tmp.file('object.json'), { data: [{ prompt: 'a' }] });
    const e = await datasetError(openDataset(path));
    expect(e.message).toMatch(/line 1: invalid JSON/);
    expect(e.file).toBe(path);
  });

  it('names the row of a malformed element', async () => {
    const path = tmp.file('bad-element.json');
    writeFileSync(path, '[\n{"prompt": "a"},\n{"prompt": "b",},\n{"prompt": "c"}\n]');
    const e = await datasetError(openDataset(path));
    expect(e.row).toBe(1);
    expect(e.message).toMatch(/row 1: invalid JSON in the element starting on line 3/);
  });

  it('rejects a truncated file and non-object elements', async () => {
    const trunc = tmp.file('trunc.json');
    writeFileSync(trunc, '[{"prompt": "a"}, {"prompt": "b"');
    expect((await datasetError(openDataset(trunc))).message).toMatch(/truncated/);
    const nums = tmp.file('nums.json');
    writeFileSync(nums, '[{"prompt": "a"}, 3]');
    const e = await datasetError(openDataset(nums));
    expect(e.row).toBe(1);
    expect(e.message).toMatch(/expected an object/);
    const empty = tmp.file('empty.json');
    writeFileSync(empty, '[]');
    expect((await datasetError(openDataset(empty))).message).toMatch(/no rows/);
  });
});

describe('JSONL', () => {
  it('reads one object per line, skipping blank lines', async () => {
    const path = writeJsonl(
      tmp.file('dummy.jsonl'),
      [
        { text_input: 'hello', ref_output: 'world' },
        { text_input: 'foo', ref_output: 'bar' },
        { text_input: 'baz', ref_output: 'qux' },
      ],
      (lines) => [lines[0]!, '', '   ', lines[1]!, lines[2]!, ''],
    );
    const d = await openDataset(path);
    expect(d.format).toBe('jsonl');
    expect(d.size).toBe(3);
    expect(d.columns).toEqual({ text: 'text_input', reference: 'ref_output' });
    expect(d.prompt(1)).toEqual({ text: 'foo', reference: 'bar' });
  });

  it('names the line of bad JSON (blank lines counted)', async () => {
    const path = writeJsonl(tmp.file('badline.jsonl'), [{ prompt: 'a' }, { prompt: 'b' }], (l) => [
      l[0]!,
      '',
      '{"prompt": "c"',
      l[1]!,
    ]);
    const e = await datasetError(openDataset(path));
    expect(e.row).toBe(3);
    expect(e.file).toBe(path);
    expect(e.message).toMatch(/line 3: invalid JSON/);
  });

  it('reads messages, system prompts and per-row max tokens', async () => {
    const path = writeJsonl(tmp.file('chat.jsonl'), [
      { messages: [{ role: 'user', content: 'hi' }], system: 'be brief', max_tokens: 7 },
      {
        messages: JSON.stringify([
          { role: 'system', content: 's' },
          { role: 'user', content: 'yo' },
        ]),
        system: 'ignored',
        max_tokens: 9,
      },
      { messages: [{ role: 'user', content: 'no system' }] },
    ]);
    const d = await openDataset(path, { mapping: { system: 'system' }, maxTokens: 50 });
    expect(d.columns).toEqual({ messages: 'messages', system: 'system', maxTokens: 'max_tokens' });
    expect(d.prompt(0)).toEqual({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      maxTokens: 7,
    });
    expect(d.prompt(1).messages).toEqual([
      { role: 'system', content: 's' },
      { role: 'user', content: 'yo' },
    ]);
    expect(d.prompt(1).maxTokens).toBe(9);
    expect(d.prompt(2)).toEqual({ messages: [{ role: 'user', content: 'no system' }], maxTokens: 50 });
  });

  it('builds messages from a system column and the text prompt (endpoints style)', async () => {
    const path = writeJsonl(tmp.file('sys.jsonl'), [
      { user_prompt: 'q1', system_prompt: 'S' },
      { user_prompt: 'q2', system_prompt: null },
    ]);
    const d = await openDataset(path, { mapping: { system: 'system_prompt' } });
    expect(d.columns.text).toBe('user_prompt');
    expect(d.prompt(0).messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'q1' },
    ]);
    expect(d.prompt(1).messages).toEqual([{ role: 'user', content: 'q2' }]);
  });

  it('reads gzipped JSONL', async () => {
    const path = writeGz(tmp.file('d.jsonl.gz'), '{"prompt":"a"}\n{"prompt":"b"}\n');
    const d = await openDataset(path);
    expect(d.size).toBe(2);
  });
});

describe('Parquet', () => {
  const n = 7;
  const texts = Array.from({ length: n }, (_, i) => `question ${i} ✓`);
  const toks = Array.from({ length: n }, (_, i) => Array.from({ length: 3 + i }, (_, k) => 200000 + k * 10 + i));

  it('reads list<int64> token columns (pyarrow layout, snappy) as Int32Array', async () => {
    const path = writeParquet(tmp.file('gptoss.parquet'), [
      { name: 'input_tokens', type: 'LIST_INT64', data: toks.map((t) => t.map(BigInt)) },
      { name: 'text_input', type: 'STRING', data: texts },
      { name: 'dataset', type: 'STRING', data: texts.map(() => 'aime') },
      { name: 'ground_truth', type: 'STRING', data: texts.map((_, i) => `${i * 2}`) },
    ]);
    const d = await openDataset(path);
    expect(d.format).toBe('parquet');
    expect(d.size).toBe(n);
    expect(d.availableColumns).toEqual(['input_tokens', 'text_input', 'dataset', 'ground_truth']);
    expect(d.columns).toEqual({ tokenIds: 'input_tokens', text: 'text_input', reference: 'ground_truth' });
    for (let i = 0; i < n; i++) {
      expect(d.prompt(i).tokenIds).toBeInstanceOf(Int32Array);
      expect(ids(d, i)).toEqual(toks[i]);
      expect(d.prompt(i).text).toBe(texts[i]);
      expect(d.prompt(i).reference).toBe(`${i * 2}`);
    }
  });

  it('reads list<int32>, gzip pages and several row groups; limit stops early', async () => {
    const path = writeParquet(
      tmp.file('gz.parquet'),
      [
        { name: 'tok_input', type: 'LIST_INT32', data: toks },
        { name: 'input', type: 'STRING', data: texts },
        { name: 'output', type: 'STRING', data: texts.map((t) => t.toUpperCase()) },
        { name: 'max_output_tokens', type: 'INT32', data: toks.map((_, i) => 10 + i) },
      ],
      { codec: 'GZIP', rowGroupSize: 3 },
    );
    const d = await openDataset(path);
    expect(d.size).toBe(n);
    expect(ids(d, 6)).toEqual(toks[6]);
    expect(d.prompt(5).maxTokens).toBe(15);
    const limited = await openDataset(path, { limit: 4 });
    expect(limited.size).toBe(4);
    expect(ids(limited, 3)).toEqual(toks[3]);
  });

  it('decodes only the mapped columns and reports bad rows by index', async () => {
    const bad = toks.map((t) => t.map(BigInt));
    bad[4] = [1n, -5n, 3n];
    const path = writeParquet(tmp.file('neg.parquet'), [
      { name: 'input_tokens', type: 'LIST_INT64', data: bad },
      { name: 'text_input', type: 'STRING', data: texts },
    ]);
    const e = await datasetError(openDataset(path));
    expect(e.row).toBe(4);
    expect(e.message).toMatch(/row 4: column 'input_tokens' \(tokenIds\): token id at position 1 is -5/);
    // Using only the text column never decodes the bad token list.
    const d = await openDataset(path, { mapping: { text: 'text_input' } });
    expect(d.columns).toEqual({ text: 'text_input' });
    expect(d.prompt(4)).toEqual({ text: texts[4] });
  });

  it('reports a null prompt cell and a file that is not Parquet', async () => {
    const withNull: (number[] | null)[] = [...toks];
    withNull[2] = null;
    const path = writeParquet(tmp.file('null.parquet'), [{ name: 'tok_input', type: 'LIST_INT32', data: withNull }]);
    const e = await datasetError(openDataset(path));
    expect(e.row).toBe(2);
    expect(e.message).toMatch(/missing prompt field/);
    const fake = tmp.file('fake.parquet');
    writeFileSync(fake, 'not parquet at all');
    expect((await datasetError(openDataset(fake))).message).toMatch(/not a readable Parquet file/);
  });
});

describe('mapping and auto-detection', () => {
  const rows = [
    { id: 1, question: 'raw q', tok: [5, 6], article: 'A', answer: 'x', cap: 3 },
    { id: 2, question: 'raw q2', tok: [7], article: 'B', answer: 'y', cap: 4 },
  ];

  it('uses the named columns', async () => {
    const path = writeJsonl(tmp.file('map.jsonl'), rows);
    const d = await openDataset(path, { mapping: { tokenIds: 'tok', reference: 'answer', maxTokens: 'cap' } });
    // Naming a prompt role turns off auto-detection of the other prompt roles.
    expect(d.columns).toEqual({ tokenIds: 'tok', reference: 'answer', maxTokens: 'cap' });
    expect(d.prompt(1)).toEqual({ tokenIds: new Int32Array([7]), reference: 'y', maxTokens: 4 });
  });

  it('auto-detects by the documented priority', async () => {
    const path = writeJsonl(tmp.file('auto.jsonl'), [
      {
        query: 'q',
        problem: 'p',
        input: 'i',
        prompt_token_ids: [1],
        input_ids: [2],
        highlights: 'h',
        ground_truth: 'g',
      },
    ]);
    const d = await openDataset(path);
    expect(d.columns).toEqual({ tokenIds: 'input_ids', text: 'input', reference: 'ground_truth' });
  });

  it('null turns a role off', async () => {
    const path = writeJsonl(tmp.file('off.jsonl'), [{ text_input: 't', input_tokens: [1, 2], output: 'o' }]);
    const d = await openDataset(path, { mapping: { tokenIds: null, reference: null } });
    expect(d.prompt(0)).toEqual({ text: 't' });
  });

  it('a text template builds the prompt from columns', async () => {
    const path = writeJsonl(tmp.file('tpl.jsonl'), rows);
    const d = await openDataset(path, { textTemplate: 'Summarize {{this}}:\n{article}\nQ: {question}' });
    expect(d.prompt(1).text).toBe('Summarize {this}:\nB\nQ: raw q2');
    const e = await datasetError(openDataset(path, { textTemplate: 'x {nope}' }));
    expect(e.message).toMatch(/'nope'.*available columns: 'id', 'question', 'tok', 'article', 'answer', 'cap'/);
  });

  it('an unknown column names the field and lists the available columns', async () => {
    const path = writeJsonl(tmp.file('unknown.jsonl'), rows);
    const e = await datasetError(openDataset(path, { mapping: { tokenIds: 'input_tokens' } }));
    expect(e.message).toBe(
      `${path}: mapping.tokenIds names column 'input_tokens', which the dataset does not have; available columns: 'id', 'question', 'tok', 'article', 'answer', 'cap'`,
    );
    const e2 = await datasetError(openDataset(path, { mapping: { text: 'article', reference: 'gold' } }));
    expect(e2.message).toMatch(/mapping\.reference names column 'gold'.*available columns: 'id', 'question'/);
    const pq = writeParquet(tmp.file('unknown.parquet'), [{ name: 'text_input', type: 'STRING', data: ['a'] }]);
    const e3 = await datasetError(openDataset(pq, { mapping: { system: 'sys' } }));
    expect(e3.message).toMatch(/mapping\.system names column 'sys'.*available columns: 'text_input'$/);
    const e4 = await datasetError(openDataset(pq, { mapping: { prompt: 'text_input' } as never }));
    expect(e4.message).toMatch(/unknown mapping field 'prompt'/);
  });

  it('an optional column may first appear after row 0 in JSONL', async () => {
    const path = writeJsonl(tmp.file('late.jsonl'), [{ prompt: 'a' }, { prompt: 'b', gold: 'G' }]);
    const d = await openDataset(path, { mapping: { reference: 'gold' } });
    expect(d.prompt(0).reference).toBeUndefined();
    expect(d.prompt(1).reference).toBe('G');
  });

  it('no prompt column at all lists what was looked for', async () => {
    const path = writeJsonl(tmp.file('noprompt.jsonl'), [{ article: 'a', highlights: 'h' }]);
    const e = await datasetError(openDataset(path));
    expect(e.message).toMatch(/no prompt column found .*available columns: 'article', 'highlights'/);
  });
});

describe('malformed rows', () => {
  async function rowFailure(rows: unknown[], options = {}): Promise<DatasetError> {
    const path = writeJson(tmp.file(`bad-${Math.random().toString(36).slice(2)}.json`), rows, 0);
    return datasetError(openDataset(path, options));
  }
  const ok = { tok_input: [1, 2, 3], input: 'x', output: 'y' };

  it('a negative token id', async () => {
    const e = await rowFailure([ok, ok, { ...ok, tok_input: [1, -2, 3] }]);
    expect(e.row).toBe(2);
    expect(e.message).toMatch(
      /row 2: column 'tok_input' \(tokenIds\): token id at position 1 is -2, expected a non-negative/,
    );
  });

  it('a fractional, too large or non-numeric token id', async () => {
    expect((await rowFailure([{ ...ok, tok_input: [1.5] }])).message).toMatch(/token id at position 0 is 1.5/);
    expect((await rowFailure([{ ...ok, tok_input: [2 ** 31] }])).message).toMatch(/32-bit/);
    expect((await rowFailure([{ ...ok, tok_input: [1, '2'] }])).message).toMatch(/position 1 is a string/);
    expect((await rowFailure([{ ...ok, tok_input: [] }])).message).toMatch(/empty token list/);
  });

  it('a string instead of an array', async () => {
    const e = await rowFailure([ok, { ...ok, tok_input: '1 2 3' }]);
    expect(e.row).toBe(1);
    expect(e.message).toMatch(/row 1: column 'tok_input' \(tokenIds\): expected a list of token ids, got a string/);
  });

  it('a missing prompt field', async () => {
    const { tok_input: _drop, ...noTokens } = ok;
    const e = await rowFailure([ok, ok, ok, noTokens]);
    expect(e.row).toBe(3);
    expect(e.message).toMatch(/row 3: column 'tok_input' \(tokenIds\): missing prompt field/);
  });

  it('wrong types for text, messages and max tokens', async () => {
    expect((await rowFailure([{ prompt: 42 }])).message).toMatch(
      /column 'prompt' \(text\): expected a string, got number 42/,
    );
    expect((await rowFailure([{ messages: [{ role: 'user' }] }])).message).toMatch(/message 0 has undefined/);
    expect((await rowFailure([{ prompt: 'a', max_tokens: 0 }])).message).toMatch(
      /\(maxTokens\): expected a positive integer/,
    );
  });
});

describe('files and options', () => {
  it('a missing file names the path', async () => {
    const path = tmp.file('nope.json');
    const e = await datasetError(openDataset(path));
    expect(e.message).toBe(`${path}: no such file`);
    expect(e.file).toBe(path);
  });

  it('an unknown extension asks for a format; format overrides the extension', async () => {
    const path = tmp.file('data.txt');
    writeFileSync(path, '{"prompt":"a"}\n');
    expect((await datasetError(openDataset(path))).message).toMatch(/pass format/);
    const d = await openDataset(path, { format: 'jsonl' });
    expect(d.prompt(0).text).toBe('a');
  });

  it('limit keeps the first rows (JSON and JSONL)', async () => {
    const json = writeJson(tmp.file('lim.json'), cnnRows(10));
    const d = await openDataset(json, { limit: 4 });
    expect(d.size).toBe(4);
    expect(ids(d, 3).at(-1)).toBe(103);
    const jsonl = writeJsonl(tmp.file('lim.jsonl'), [{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'c' }]);
    expect((await openDataset(jsonl, { limit: 2 })).size).toBe(2);
    // Rows past the limit are not read, so a bad one there does not matter.
    const tail = tmp.file('lim-bad.jsonl');
    writeFileSync(tail, '{"prompt":"a"}\n{"prompt":"b"}\nnot json\n');
    expect((await openDataset(tail, { limit: 2 })).size).toBe(2);
    await expect(openDataset(jsonl, { limit: 0 })).rejects.toThrow(/limit must be a positive integer/);
  });

  it('out-of-range sample index', async () => {
    const d = await openDataset(writeJsonl(tmp.file('range.jsonl'), [{ prompt: 'a' }]));
    expect(() => d.prompt(1)).toThrow(DatasetError);
    expect(() => d.prompt(-1)).toThrow(/out of range/);
  });
});
