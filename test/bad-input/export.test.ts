/**
 * Bad-input suite — export stage (`activities/export.ts` planExport / exportShard / mergeExport called
 * directly) on a copy of the shared MiniLM index, with the fixture datasets test/fixtures/datasets/paired
 * (gold without OCR, OCR without gold, a cp1252 gold file, an empty gold, an empty OCR file) and
 * test/fixtures/demo/ocr.jsonl (a Latin-only line, an empty OCR line).
 *
 * Cases:
 *   - export with no index              → non-retryable "no index at … — run `phase5 build` first"; with the
 *                                          index in place the same call exports every record
 *   - unknown dataset in --datasets      → non-retryable, lists the datasets the config declares
 *   - dataset path not found             → non-retryable, names the dataset and the path
 *   - gold without OCR file              → skipped, counted (missingOcr), logged with the file name
 *   - OCR without gold                   → skipped, counted (missingGt), logged with the file name
 *   - non-UTF-8 gold file                → skipped, counted (unreadable), logged with the file name
 *   - empty OCR line                     → a zero_shot_fallback record (prompt v1, no retrieval)
 *   - Latin-only OCR line                → a zero_shot_fallback record
 *   - JSONL dataset with malformed lines → skipped, counted (badLines), logged as file:line: reason
 *   - a 1 MB OCR line                    → skipped, counted (tooLong, > export.max_line_chars), logged as
 *                                          file:line; the other line is exported
 *   - empty dataset folder               → non-retryable, names the folder and the suffixes it looked for
 *   - results dir that is a file         → non-retryable, names the path and the setting
 *   - inference_input shard with a torn last line → the resumed shard cuts it, logs it and ends complete
 *                                          and identical, with no duplicate; the merge is unchanged
 */
import { expect } from 'chai';
import { cpSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createActivities } from '../../activities';
import type { ExportPlan } from '../../src/stages/export/export';
import type { InferenceInputRecord } from '../../src/llm/records';
import { FIXTURES } from '../helpers/shared-data';
import { stagePaths } from '../../src/stages/study/layout';
import {
  cloneResults,
  failsWithLogs,
  makeConfig,
  MINILM_DIR,
  requireModel,
  runExport,
  sharedResults,
  stageInput,
  tmpDir,
  withLogs,
  type LogRecord,
} from './helpers';

const { exportShard, mergeExport, planExport } = createActivities();

const readRecords = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as InferenceInputRecord);

describe('bad-input suite', function () {
  this.timeout(60000);
  before(function () {
    requireModel(this, MINILM_DIR);
  });

  describe('export', () => {
    it('export with no index', async () => {
      const results = tmpDir('export-noindex');
      const input = stageInput(makeConfig(results));
      await failsWithLogs(
        () => runExport(input),
        new RegExp(`no index at ${stagePaths(input.config, {}).index} — run \`phase5 build\` first`),
      );
      cpSync(path.join(await sharedResults(), 'corpora'), path.join(results, 'corpora'), { recursive: true });
      const { result } = await withLogs(() => runExport(input));
      expect(result.merged.records).to.equal(13);
      expect(readRecords(result.merged.path)).to.have.length(13);
    });

    it('export with the index of other corpus settings: names it, what differs and the flag that selects it', async () => {
      const results = await cloneResults('export-other-settings');
      const built = stagePaths(makeConfig(results), {}).index; // the copied index: corpus.max_sentences 40
      const input = stageInput(makeConfig(results, { corpus: { max_sentences: 4000 } }));
      const { message } = await failsWithLogs(
        () => runExport(input),
        new RegExp(`no index at ${stagePaths(input.config, {}).index} — run \`phase5 build\` first`),
      );
      expect(message).to.contain(`; ${built} exists, built with corpus.max_sentences 40 vs 4,000 here — select it with --max-sentences 40`);
      expect(message.split('\n'), 'one line').to.have.length(1);
      // That flag (merged into corpus.max_sentences) selects it: the same export goes through.
      const { result } = await withLogs(() => runExport(stageInput(makeConfig(results, { corpus: { max_sentences: 40 } }))));
      expect(result.merged.records).to.equal(13);
    });

    it('unknown dataset in --datasets', async () => {
      const results = await cloneResults('export-unknown');
      await failsWithLogs(
        () => planExport(stageInput(makeConfig(results), { datasets: ['NOPE'] })),
        /unknown dataset "NOPE" — the config declares: paired, demo/,
      );
    });

    it('dataset path not found', async () => {
      const results = await cloneResults('export-nopath');
      const missing = path.join(results, 'no-such-dataset.jsonl');
      const config = makeConfig(results, { datasets: { gone: { type: 'jsonl', path: missing } } });
      await failsWithLogs(() => planExport(stageInput(config, { datasets: ['gone'] })), new RegExp(`dataset gone: ${missing} not found`));
      writeFileSync(missing, JSON.stringify({ ocr_text: 'قال ابو عتمان في كتابه', gt_text: 'قال أبو عثمان في كتابه' }) + '\n');
      const { result } = await withLogs(() => runExport(stageInput(config, { datasets: ['gone'] })));
      expect(result.merged.byDataset).to.deep.equal({ gone: 1 });
    });

    describe('fixture datasets, one export', () => {
      let results: string;
      let out: Awaited<ReturnType<typeof runExport>>;
      let logs: LogRecord[];
      let records: InferenceInputRecord[];
      const problemsLog = (dataset: string) =>
        logs.find((l) => l.component === 'datasets' && l.dataset === dataset && /problem\(s\) counted and skipped/.test(l.msg));

      before(async () => {
        results = await cloneResults('export-fixtures');
        const r = await withLogs(() => runExport(stageInput(makeConfig(results))));
        out = r.result;
        logs = r.logs;
        records = readRecords(out.merged.path);
      });

      it('gold without OCR file', () => {
        const l = problemsLog('paired');
        expect(l, 'a warning for dataset paired').to.not.equal(undefined);
        expect((l!.problems as Record<string, number>).missingOcr).to.equal(1);
        expect((l!.examples as Record<string, string[]>).missingOcr).to.deep.equal(['0003.gt.txt']);
        expect(records.map((r) => r.sample_id)).to.not.include('paired/0003');
      });

      it('OCR without gold', () => {
        const l = problemsLog('paired')!;
        expect((l.problems as Record<string, number>).missingGt).to.equal(1);
        expect((l.examples as Record<string, string[]>).missingGt).to.deep.equal(['0004.png.rec.txt']);
        expect(records.map((r) => r.sample_id)).to.not.include('paired/0004');
      });

      it('non-UTF-8 gold file', () => {
        const l = problemsLog('paired')!;
        expect((l.problems as Record<string, number>).unreadable).to.equal(1);
        expect((l.examples as Record<string, string[]>).unreadable).to.deep.equal(['0005.gt.txt (not valid UTF-8)']);
        // Everything else of the dataset is exported, and the counts add up.
        expect(out.merged.byDataset).to.deep.equal({ paired: 3, demo: 10 });
        expect(out.plan.datasets.map((d) => d.samples)).to.deep.equal([3, 10]);
      });

      it('empty OCR line', () => {
        for (const id of ['paired/0007', 'fixture-ocr/empty']) {
          const r = records.find((x) => x.sample_id === id)!;
          expect(r, id).to.not.equal(undefined);
          expect(r.ocr_text).to.equal('');
          expect(r).to.include({ prompt_type: 'zero_shot_fallback', prompt_version: 'v1', retrieval_context: '', retrieved_k: 0 });
          expect(r.retrieval_scores).to.deep.equal([]);
        }
        expect(records.filter((r) => r.prompt_type === 'rag').length).to.be.greaterThan(5); // the others retrieved
      });

      it('Latin-only OCR line', () => {
        const r = records.find((x) => x.sample_id === 'fixture-ocr/latin')!;
        expect(r.ocr_text).to.match(/^[\x20-\x7e—]+$/);
        expect(r).to.include({ prompt_type: 'zero_shot_fallback', prompt_version: 'v1', retrieved_k: 0, retrieval_context: '' });
        expect(out.shards.reduce((s, x) => s + x.fallbacks, 0)).to.equal(3);
      });

      it('inference_input shard with a torn last line', async () => {
        const dir = path.dirname(out.merged.path); // the export of these settings: <results>/exports/<fingerprint>/
        const plan = JSON.parse(readFileSync(path.join(dir, 'plan.json'), 'utf8')) as ExportPlan;
        const shard = plan.datasets.find((d) => d.dataset === 'demo')!.shards[0];
        const file = path.join(dir, 'demo', 'shard-00000.jsonl');
        const complete = readFileSync(file, 'utf8');
        const merged = readFileSync(out.merged.path, 'utf8');
        // A crash mid-write: the done marker is not there yet and the third line is half written.
        rmSync(`${file}.done.json`);
        const lines = complete.split('\n');
        const torn = Buffer.byteLength(lines.slice(0, 2).join('\n') + '\n') + 25;
        truncateSync(file, torn);
        const input = stageInput(makeConfig(results));
        const { result, logs: resumeLogs } = await withLogs(() => exportShard({ input, shard }));
        expect(result).to.include({ records: shard.end - shard.start, reused: false });
        const cut = resumeLogs.find((l) => l.msg === 'cut a torn last line left by a crash');
        expect(cut, 'the cut is logged').to.not.equal(undefined);
        expect(cut!.truncatedBytes).to.equal(25);
        expect(readFileSync(file, 'utf8')).to.equal(complete); // no gap, no duplicate
        const again = await withLogs(() => mergeExport({ input, plan }));
        expect(again.result.records).to.equal(13);
        expect(readFileSync(out.merged.path, 'utf8')).to.equal(merged);
      });
    });

    it('JSONL dataset with malformed lines', async () => {
      const results = await cloneResults('export-mixed');
      const mixed = path.join(FIXTURES, 'datasets', 'mixed.jsonl');
      const config = makeConfig(results, { datasets: { mixed: { type: 'jsonl', path: mixed } } });
      const { result, logs } = await withLogs(() => runExport(stageInput(config, { datasets: ['mixed'] })));
      const l = logs.find((x) => x.component === 'datasets' && x.dataset === 'mixed')!;
      expect(l, 'a warning for dataset mixed').to.not.equal(undefined);
      const bad = (l.examples as Record<string, string[]>).badLines;
      expect((l.problems as Record<string, number>).badLines).to.be.greaterThan(2);
      expect(bad[0]).to.match(/mixed\.jsonl:3: /); // file:line of the first broken line
      expect(result.merged.records).to.equal(result.plan.datasets[0].samples);
      expect(result.merged.records).to.be.greaterThan(0);
    });

    it('a 1 MB OCR line', async () => {
      const results = await cloneResults('export-long');
      const file = path.join(results, 'long.jsonl');
      const long = 'وقال بعض الحكماء إن الصبر حصن منيع '.repeat(Math.ceil((1 << 20) / 60));
      expect(Buffer.byteLength(long)).to.be.greaterThan(1 << 20);
      writeFileSync(
        file,
        [
          { sample_id: 'long/1', ocr_text: long, gt_text: long },
          { sample_id: 'long/2', ocr_text: 'وقال ابو عتمان في كتابه', gt_text: 'وقال أبو عثمان في كتابه' },
        ]
          .map((r) => JSON.stringify(r))
          .join('\n') + '\n',
      );
      const config = makeConfig(results, { datasets: { long: { type: 'jsonl', path: file } } });
      const { result, logs } = await withLogs(() => runExport(stageInput(config, { datasets: ['long'] })));
      expect(result.merged.records).to.equal(1);
      expect(readRecords(result.merged.path).map((r) => r.sample_id)).to.deep.equal(['long/2']);
      const warnings = logs.filter((l) => l.component === 'datasets' && l.dataset === 'long' && l.level === 40);
      expect(warnings, 'logged once (by the plan, not again by every shard)').to.have.length(1);
      const warned = warnings[0];
      expect((warned.problems as Record<string, number>).tooLong).to.equal(1);
      expect((warned.examples as Record<string, string[]>).tooLong).to.deep.equal([
        `${file}:1 (${long.trim().length} chars > max_line_chars 20000)`,
      ]);
    });

    it('empty dataset folder', async () => {
      const results = await cloneResults('export-empty');
      const empty = path.join(results, 'empty-book');
      mkdirSync(empty);
      const config = makeConfig(results, { datasets: { empty: { type: 'paired_dir', path: empty } } });
      await failsWithLogs(
        () => planExport(stageInput(config, { datasets: ['empty'] })),
        new RegExp(`dataset "empty": no OCR/gold pairs in ${empty} \\(looked for <name>\\.png\\.rec\\.txt beside <name>\\.gt\\.txt`),
      );
    });

    it('results dir that is a file', async () => {
      const file = path.join(tmpDir('export-file'), 'results');
      writeFileSync(file, 'not a folder');
      await failsWithLogs(
        () => planExport(stageInput(makeConfig(file))),
        new RegExp(`results dir ${file} is a file, not a directory — point --results-dir`),
      );
    });
  });
});
