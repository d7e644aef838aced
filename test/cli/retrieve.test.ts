/**
 * `phase5 retrieve` is export's retrieval: with rerank and hybrid on, the CLI (a child process) prints the same
 * hits in the same order, with the same scores, as the export stage's record for that line, and `--context`
 * prints exactly the record's retrieval_context. The line compared is one where the pipeline's order differs
 * from the raw dense order, so a retrieve that skipped the pipeline (as `--dense-only` does)
 * would fail the comparison — checked too.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { RAGRetriever } from '../../src/index/retriever';
import { retrieverConfig } from '../../src/stages/build/retriever';
import { REPO_ROOT } from '../helpers/shared-data';
import { baseRaw, MINILM_DIR, requireModel, runExport, sharedPaths, stageInput, tmpDir, withLogs } from '../bad-input/helpers';

interface ExportRecord {
  sample_id: string;
  ocr_text: string;
  retrieval_context: string;
  retrieval_scores: number[];
  retrieval_sources: { source_uri: string; idx: number }[];
}

interface Hit {
  idx: number;
  source_uri: string;
  score: number;
}

describe('phase5 retrieve: the same retrieval as export', function () {
  this.timeout(240000);
  let configFile: string;
  let config: Config;
  let paths: { corpus: string; index: string };
  let records: ExportRecord[];

  function retrieve(...args: string[]) {
    const r = spawnSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'phase5.js'),
        '--config',
        configFile,
        'retrieve',
        '--corpus-path',
        paths.corpus,
        '--index-path',
        paths.index,
        ...args,
      ],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 120000,
        env: { ...process.env, PHASE5_LOG_LEVEL: 'warn' },
      },
    );
    expect(r.status, r.stderr).to.equal(0);
    return r.stdout;
  }

  before(async function () {
    requireModel(this, MINILM_DIR);
    paths = await sharedPaths();
    const dir = tmpDir('retrieve-cli');
    const raw = baseRaw(dir) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    raw.retrieval = {
      top_k: 4,
      min_score: 0.1,
      rerank: { enabled: true, method: 'lexical' },
      hybrid: { enabled: true, fusion: 'rrf' },
    };
    raw.datasets = { demo: raw.datasets.demo };
    configFile = path.join(dir, 'config.yaml');
    writeFileSync(configFile, YAML.stringify(raw));
    config = parseConfig(raw, configFile, { env: {} });
    await withLogs(() => runExport(stageInput(config, { corpusPath: paths.corpus, indexPath: paths.index })));
    records = readFileSync(path.join(dir, 'arms', 'rag', 'inference_input.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ExportRecord);
  });

  /** The first record whose pipeline order differs from the dense index's order for its line. */
  async function lineWherePipelineMatters(): Promise<ExportRecord> {
    const { result: dense } = await withLogs(() => RAGRetriever.open(retrieverConfig(config, paths)));
    try {
      for (const rec of records.filter((r) => r.retrieval_sources.length > 0)) {
        const hits = await dense.retrieve(rec.ocr_text, 4, 0.1);
        if (hits.map((h) => h.idx).join() !== rec.retrieval_sources.map((s) => s.idx).join()) return rec;
      }
    } finally {
      await dense.close();
    }
    throw new Error('rerank + hybrid changed no line: the comparison would not tell the pipeline from the dense index');
  }

  it("prints the hits of export's record, in its order and with its scores; --dense-only differs", async () => {
    const rec = await lineWherePipelineMatters();
    const hits = JSON.parse(retrieve('--json', rec.ocr_text)) as Hit[];
    expect(hits.map((h) => h.idx)).to.deep.equal(rec.retrieval_sources.map((s) => s.idx));
    expect(hits.map((h) => h.source_uri)).to.deep.equal(rec.retrieval_sources.map((s) => s.source_uri));
    // Export embeds its queries in batches: the float sums differ in the last digits, not more.
    hits.forEach((h, i) => expect(h.score).to.be.closeTo(rec.retrieval_scores[i], 1e-5));
    const dense = JSON.parse(retrieve('--json', '--dense-only', rec.ocr_text)) as Hit[];
    expect(dense.map((h) => h.idx)).to.not.deep.equal(rec.retrieval_sources.map((s) => s.idx));
  });

  it('--context prints the retrieval context exactly as export put it in the prompt', () => {
    const rec = records.find((r) => r.retrieval_sources.length > 0)!;
    expect(retrieve('--context', rec.ocr_text)).to.equal(`${rec.retrieval_context}\n`);
    const latin = records.find((r) => r.sample_id === 'fixture-ocr/latin')!;
    expect(retrieve('--context', latin.ocr_text)).to.equal(`${latin.retrieval_context}\n`);
  });
});
