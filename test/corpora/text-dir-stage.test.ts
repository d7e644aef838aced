/**
 * `corpus.source: text_dir` reaches the stages: the build activities read a folder of .md/.txt files
 * (not OpenITI: the OpenITI root in the config does not even exist), chunk them, embed them with MiniLM; export
 * retrieves from those chunks; an imported corrections file is analyzed. The corpus is reused when nothing
 * changed and rebuilt (and re-embedded) when a file changes — the manifest rules of the OpenITI corpus.
 */
import { expect } from 'chai';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { parseConfig } from '../../src/config/load';
import { stagePaths } from '../../src/stages/study/layout';
import { baseRaw, DEMO_OCR, MINILM_DIR, requireModel, runExport, stageInput, tmpDir, withLogs } from '../bad-input/helpers';
import { createStageCalls } from '../helpers/stage-calls';

const { buildCorpus, buildIndex, importCorrections, analyzeResults } = createStageCalls();
const jsonl = <T>(file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

describe('corpus source text_dir: build → export → analyze', function () {
  this.timeout(240000);
  const dir = tmpDir('text-dir');
  const books = path.join(dir, 'books');
  const gold = jsonl<{ sample_id: string; gt_text: string }>(DEMO_OCR)
    .map((r) => r.gt_text)
    .filter((t) => /[\u0600-\u06FF]/.test(t));
  const raw = baseRaw(path.join(dir, 'results')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  raw.data = { openiti_root: path.join(dir, 'no-openiti-here') };
  raw.corpus = { source: { type: 'text_dir', path: books, chunk_size: 12, chunk_overlap: 3 } };
  raw.datasets = { demo: raw.datasets.demo };
  raw.infer = { arms: ['rag'] };
  const config = parseConfig(raw, 'text-dir test', { env: {} });
  const input = stageInput(config);
  const corpusFile = stagePaths(config, {}).corpus;

  before(function () {
    requireModel(this, MINILM_DIR);
    mkdirSync(path.join(books, 'adab'), { recursive: true });
    writeFileSync(path.join(books, 'adab', 'one.md'), `# باب الحكمة\n\n${gold.slice(0, 4).join('. ')}.\n`);
    writeFileSync(path.join(books, 'two.txt'), `${gold.slice(4).join('. ')}.\n`);
    writeFileSync(path.join(books, 'notes.json'), '{"not": "read"}\n');
  });

  it('builds the corpus from the folder, embeds it, and reuses it when nothing changed', async () => {
    const { result: corpus } = await withLogs(() => buildCorpus(input));
    expect(corpus.reused).to.equal(false);
    const rows = jsonl<{ source_uri: string; text: string; idx: number }>(corpusFile);
    expect(rows.length).to.equal(corpus.sentences).and.to.be.greaterThan(2);
    expect(new Set(rows.map((r) => r.source_uri))).to.deep.equal(new Set(['books/adab/one.md', 'books/two.txt']));
    const { result: index } = await withLogs(() => buildIndex(input));
    expect(index.vectors).to.equal(rows.length);
    const again = await withLogs(() => buildCorpus(input));
    expect(again.result.reused).to.equal(true);
  });

  it('exports with hits from the folder and analyzes an imported corrections file', async () => {
    await withLogs(() => runExport(input));
    const records = jsonl<{
      sample_id: string;
      dataset: string;
      prompt_type: string;
      prompt_version: string;
      ocr_text: string;
      gt_text: string;
      retrieval_sources: { source_uri: string }[];
    }>(path.join(dir, 'results', 'arms', 'rag', 'inference_input.jsonl'));
    const withHits = records.filter((r) => r.retrieval_sources.length > 0);
    expect(withHits.length).to.be.greaterThan(5);
    expect(withHits.flatMap((r) => r.retrieval_sources.map((s) => s.source_uri)).every((u) => u.startsWith('books/'))).to.equal(true);
    const file = path.join(dir, 'corrections-in.jsonl');
    const rows = records.map((r) => ({
      sample_id: r.sample_id,
      dataset: r.dataset,
      prompt_type: r.prompt_type,
      prompt_version: r.prompt_version,
      model: 'test',
      ocr_text: r.ocr_text,
      gt_text: r.gt_text,
      corrected_text: r.gt_text,
      raw_output: r.gt_text,
      error: null,
    }));
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await withLogs(() => importCorrections({ ...input, options: { importFile: file } }));
    const { result } = await withLogs(() => analyzeResults(input));
    const demo = result.datasets.find((d) => d.dataset === 'demo')!;
    expect(demo.n).to.be.greaterThan(5);
    expect(demo.rag_cer).to.equal(0); // the imported corrections are the gold text
  });

  it('a changed file rebuilds the corpus and re-embeds it', async () => {
    appendFileSync(path.join(books, 'two.txt'), 'وقال بعض الحكماء إن الصبر مفتاح الفرج في كل امر عسير.\n');
    const { result: corpus } = await withLogs(() => buildCorpus(input));
    expect(corpus.reused).to.equal(false);
    const { result: index } = await withLogs(() => buildIndex(input));
    expect(index.vectors).to.equal(corpus.sentences);
    expect(readFileSync(corpusFile, 'utf8')).to.contain('مفتاح الفرج');
  });
});

describe('corpus source jsonl: the build reads the named text and metadata fields', () => {
  it('builds corpus.jsonl from the records, with source_uri from id_field and the metadata copied', async () => {
    const dir = tmpDir('jsonl-source');
    const file = path.join(dir, 'records.jsonl');
    writeFileSync(
      file,
      [
        { body: 'وقال بعض الحكماء إن الصبر حصن منيع', key: 'a1', era: 'early', year: 255 },
        { body: 'وروى أهل العلم إن الوفاء نور', key: 'b2', era: 'late', year: 600 },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    const raw = baseRaw(path.join(dir, 'results')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    raw.corpus = {
      source: { type: 'jsonl', path: file, text_field: 'body', id_field: 'key', date_field: 'year', metadata_fields: ['era'] },
    };
    const input = stageInput(parseConfig(raw, 'jsonl test', { env: {} }));
    const { result } = await withLogs(() => buildCorpus(input));
    expect(result.sentences).to.equal(2);
    const rows = jsonl<{ text: string; source_uri: string; date: number; era: string }>(stagePaths(input.config, {}).corpus);
    expect(rows.map((r) => [r.source_uri, r.date, r.era])).to.deep.equal([
      ['records.jsonl#a1', 255, 'early'],
      ['records.jsonl#b2', 600, 'late'],
    ]);
    expect(rows[0].text).to.equal('وقال بعض الحكماء إن الصبر حصن منيع');
  });
});
