/**
 * Bad-input suite — build stage, embedding + index step, and the export stage reading a bad index
 * (`activities/build.ts` buildIndex, `activities/export.ts` planExport/exportShard/mergeExport) with the
 * MiniLM model and a copy of one shared fixture index per case.
 *
 * Cases:
 *   - model dir without tokenizer.json   → non-retryable "model dir … has no tokenizer.json"; after adding it,
 *                                           the same call builds a complete index
 *   - model.onnx that is a Git LFS pointer → non-retryable "… is a Git LFS pointer"; the real file then builds
 *   - index step with no corpus          → non-retryable "no corpus at … the corpus step of `phase5 build`"
 *   - malformed corpus line              → non-retryable "corpus.jsonl:N: …" (a data error, not transient: retrying
 *                                           cannot help); with the line fixed, the plain
 *                                           re-run says (non-retryably) that the partial vectors cannot be
 *                                           resumed; the forced build it names completes
 *   - truncated index file               → export fails non-retryably, "index file … is unusable … rebuild
 *                                           with `phase5 build --force`"; after that rebuild, export completes
 *   - manifest mismatch: corpus changed  → export names corpus.sha256 and the fix; build then rebuilds by
 *                                           itself and export completes
 *   - model dir missing at export        → non-retryable "retrieval is disabled: … model dir … does not exist"
 *   - manifest mismatch: model changed   → export names model.sha256 with both model ids (multilingual-e5
 *                                           vs MiniLM); back on the index's model, export completes
 */
import { expect } from 'chai';
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { indexFiles } from '../../src/index/manifest';
import {
  cloneResults,
  E5_DIR,
  failsWithLogs,
  makeConfig,
  MINILM_DIR,
  requireModel,
  runExport,
  stageInput,
  tmpDir,
  withLogs,
} from './helpers';
import { createStageCalls } from '../helpers/stage-calls';
import { stagePaths } from '../../src/stages/study/layout';

const { buildIndex } = createStageCalls();

const LFS_POINTER = 'version https://git-lfs.github.com/spec/v1\noid sha256:' + 'a'.repeat(64) + '\nsize 90261504\n';

/** A results dir holding only the shared corpus (its index removed), so a build really runs. */
async function corpusOnly(prefix: string): Promise<string> {
  const dir = await cloneResults(prefix);
  const files = indexFiles(stagePaths(makeConfig(dir), {}).index);
  for (const f of Object.values(files)) rmSync(f, { force: true });
  return dir;
}

function modelDir(parts: { tokenizer: boolean; model: 'real' | 'lfs' }): string {
  const dir = tmpDir('model');
  mkdirSync(path.join(dir, 'onnx'));
  if (parts.model === 'real') {
    symlinkSync(path.join(MINILM_DIR, 'onnx', 'model.onnx'), path.join(dir, 'onnx', 'model.onnx'));
  } else {
    writeFileSync(path.join(dir, 'onnx', 'model.onnx'), LFS_POINTER);
  }
  symlinkSync(path.join(MINILM_DIR, 'onnx', 'model.onnx_data'), path.join(dir, 'onnx', 'model.onnx_data'));
  if (parts.tokenizer) symlinkSync(path.join(MINILM_DIR, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  return dir;
}

const withModel = (dir: string) => ({ rag: { embedding: { model_dir: dir } } });
const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n');

describe('bad-input suite', function () {
  this.timeout(60000);
  before(function () {
    requireModel(this, MINILM_DIR);
  });

  describe('build: index, and export reading it', () => {
    it('model dir without tokenizer.json', async () => {
      const results = await corpusOnly('no-tokenizer');
      const model = modelDir({ tokenizer: false, model: 'real' });
      await failsWithLogs(
        () => buildIndex(stageInput(makeConfig(results, withModel(model)))),
        new RegExp(`model dir ${model} has no tokenizer\\.json`),
      );
      symlinkSync(path.join(MINILM_DIR, 'tokenizer.json'), path.join(model, 'tokenizer.json'));
      const { result } = await withLogs(() => buildIndex(stageInput(makeConfig(results, withModel(model)))));
      expect(result.vectors).to.equal(lines(stagePaths(makeConfig(results), {}).corpus).length);
      expect(lines(indexFiles(result.indexPath).sentences)).to.have.length(result.vectors);
    });

    it('model.onnx that is a Git LFS pointer', async () => {
      const results = await corpusOnly('lfs');
      const model = modelDir({ tokenizer: true, model: 'lfs' });
      await failsWithLogs(
        () => buildIndex(stageInput(makeConfig(results, withModel(model)))),
        new RegExp(`model file ${path.join(model, 'onnx', 'model.onnx')} is a Git LFS pointer`),
        /git lfs pull/,
      );
      rmSync(path.join(model, 'onnx', 'model.onnx'));
      symlinkSync(path.join(MINILM_DIR, 'onnx', 'model.onnx'), path.join(model, 'onnx', 'model.onnx'));
      const { result } = await withLogs(() => buildIndex(stageInput(makeConfig(results, withModel(model)))));
      expect(result.vectors).to.be.greaterThan(0);
    });

    it('index step with no corpus', async () => {
      const results = tmpDir('no-corpus');
      await failsWithLogs(
        () => buildIndex(stageInput(makeConfig(results))),
        /no corpus at .*corpus\.jsonl — the corpus step of `phase5 build` makes it/,
      );
    });

    it('malformed corpus line', async () => {
      const results = await corpusOnly('bad-corpus-line');
      const corpus = stagePaths(makeConfig(results), {}).corpus;
      const good = readFileSync(corpus, 'utf8').split('\n');
      writeFileSync(corpus, [...good.slice(0, 4), good[4].slice(0, 20), ...good.slice(5)].join('\n'));
      await failsWithLogs(() => buildIndex(stageInput(makeConfig(results))), new RegExp(`${corpus}:5: `));
      writeFileSync(corpus, good.join('\n'));
      // The failed attempt left partial vectors of the broken corpus: not resumable, said at once (no retries).
      await failsWithLogs(
        () => buildIndex(stageInput(makeConfig(results))),
        /cannot be resumed: the corpus changed since — delete it or rebuild with `phase5 build --force`/,
      );
      const { result } = await withLogs(() => buildIndex(stageInput(makeConfig(results), {}, true)));
      expect(result.vectors).to.equal(lines(corpus).length);
    });

    it('truncated index file', async () => {
      const results = await cloneResults('truncated');
      const index = stagePaths(makeConfig(results), {}).index;
      truncateSync(index, Math.floor(statSync(index).size / 2));
      const input = stageInput(makeConfig(results));
      await failsWithLogs(() => runExport(input), new RegExp(`index file ${index} is unusable: .*rebuild with \`phase5 build --force\``));
      // The message's fix: a forced rebuild, then the same export completes.
      await withLogs(() => buildIndex(stageInput(makeConfig(results), {}, true)));
      const { result } = await withLogs(() => runExport(input));
      expect(result.merged.records).to.equal(13);
      expect(lines(result.merged.path)).to.have.length(13);
    });

    it('manifest mismatch: corpus changed', async () => {
      const results = await cloneResults('corpus-changed');
      const corpus = stagePaths(makeConfig(results), {}).corpus;
      writeFileSync(corpus, lines(corpus).slice(0, -1).join('\n') + '\n');
      const input = stageInput(makeConfig(results));
      await failsWithLogs(() => runExport(input), /was built with corpus\.sha256=.*config says .*rebuild with `phase5 build --force`/);
      const { result: built } = await withLogs(() => buildIndex(input)); // notices the mismatch and rebuilds
      expect(built.vectors).to.equal(lines(corpus).length);
      const { result } = await withLogs(() => runExport(input));
      expect(result.merged.records).to.equal(13);
    });

    it('model dir missing at export', async () => {
      const results = await cloneResults('model-gone');
      const gone = path.join(results, 'no-model-here');
      // Another model is another index file (outputs.md#one-folder-per-settings): the built one named with --index-path.
      const indexPath = stagePaths(makeConfig(results), {}).index;
      await failsWithLogs(
        () => runExport(stageInput(makeConfig(results, withModel(gone)), { indexPath })),
        new RegExp(`retrieval is disabled: embedding model unavailable: model dir ${gone} does not exist`),
      );
      const { result } = await withLogs(() => runExport(stageInput(makeConfig(results))));
      expect(result.merged.records).to.equal(13);
    });

    it('manifest mismatch: model changed', async function () {
      requireModel(this, E5_DIR);
      const results = await cloneResults('model-changed');
      const e5 = makeConfig(results, {
        rag: {
          embedding_model: 'intfloat/multilingual-e5-small',
          embedding: { model_dir: E5_DIR, query_prefix: 'query: ', passage_prefix: 'passage: ' },
        },
      });
      // Another model is another index file; --index-path names the MiniLM one, whose manifest says so.
      const indexPath = stagePaths(makeConfig(results), {}).index;
      expect(stagePaths(e5, {}).index).to.not.equal(indexPath);
      await failsWithLogs(
        () => runExport(stageInput(e5, { indexPath })),
        /was built with model\.sha256="[0-9a-f]{64} \(sentence-transformers\/all-MiniLM-L6-v2\)", config says "[0-9a-f]{64} \(intfloat\/multilingual-e5-small\)"/,
        /rebuild with `phase5 build --force`/,
      );
      const { result } = await withLogs(() => runExport(stageInput(makeConfig(results))));
      expect(result.merged.records).to.equal(13);
    });
  });
});
