/**
 * With a `study:` config the result is arms-only (no per-dataset Phase 5 rows): the human summary of `run` /
 * `analyze` and `phase5 report` print the arms table (arm, lines, CER [CI], raw CER, ΔCER vs baseline [CI],
 * p_holm, guard fallback, † for upper bounds) from study/arms.json's figures, and `--json` carries them.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '../../analysis/stage';
import type { AnalyzeResult } from '../../analysis/stage/result';
import type { ArmsAnalysis } from '../../analysis/study/arms';
import { armsTableLines, summarizeResult } from '../../bin/cli/summary';
import { REPO_ROOT } from '../helpers/shared-data';
import type { ExportResult } from '../../workflows/types';

const GOLD = ['abcdefghij', 'klmnopqrst', 'uvwxyzabcd', 'efghijklmn', 'opqrstuvwx', 'yzabcdefgh'];
const OCR = GOLD.map((g, i) => (i % 2 === 0 ? `${g.slice(0, 8)}XY` : g));
const GUARD = { enabled: true, max_edit_ratio: 0.5, length_ratio: [0.6, 1.5], trim_overgeneration: true };

/** One arm folder; `correct(i)` → [corrected, guard] for line i. */
function writeArm(root: string, info: Record<string, unknown>, correct: (i: number) => [string, string?]): void {
  const dir = path.join(root, 'arms', String(info.name));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'arm.json'), JSON.stringify(info));
  const recs = GOLD.map((gt, i) => {
    const [corrected, guard] = correct(i);
    return JSON.stringify({
      sample_id: `s${i}`,
      dataset: 'D',
      prompt_type: info.prompt,
      prompt_version: 'v1',
      model: 'm',
      ocr_text: OCR[i],
      gt_text: gt,
      corrected_text: corrected,
      raw_output: corrected,
      ...(guard ? { raw_text: guard === 'kept' ? corrected : `${corrected}!!`, guard } : {}),
      latency_ms: 1,
      prompt_tokens: 1,
      completion_tokens: 1,
      error: null,
    });
  });
  writeFileSync(path.join(dir, 'corrections.jsonl'), recs.join('\n') + '\n');
}

function writeTree(root: string): void {
  const ret = (mode: string, top_k: number) => ({ mode, top_k, fingerprint: `fp-${mode}` });
  writeArm(
    root,
    { name: 'zero_shot', prompt: 'zero_shot', retrieval: ret('none', 0), upper_bound: false, model: 'm', guard: null },
    (i) => [OCR[i]],
  );
  // rag: fixes lines 0 and 2, the guard sends line 4 back to the OCR text.
  writeArm(root, { name: 'rag', prompt: 'rag', retrieval: ret('dense', 3), upper_bound: false, model: 'm', guard: GUARD }, (i) =>
    i === 4 ? [OCR[i], 'fell_back:edit_ratio'] : [GOLD[i], 'kept'],
  );
  writeArm(root, { name: 'oracle', prompt: 'rag', retrieval: ret('gold_query', 3), upper_bound: true, model: 'm', guard: GUARD }, (i) => [
    GOLD[i],
    'kept',
  ]);
}

const f4 = (x: number | null) => (x === null ? '-' : x.toFixed(4));

describe('cli: the arms table (study configs)', function () {
  this.timeout(60000);
  let root: string;
  let result: AnalyzeResult;
  let armsJson: ArmsAnalysis;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'arms-summary-'));
    writeTree(root);
    result = await run(
      {
        ragDir: path.join(root, 'phase5'),
        bootstrap: { iterations: 50, seed: 1 },
        report: { png: false },
        logFile: false,
        // Six lines: intervals on purpose, so the table's CI columns can be checked.
        arms: { resultsDir: root, baseline: 'zero_shot', minClusters: 1, clusters: { blockLines: 1 } },
      },
      {},
      'silent',
    );
    armsJson = JSON.parse(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8')) as ArmsAnalysis;
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('the result is arms-only, and the run summary prints one row per arm instead of an empty dataset table', () => {
    expect(result.datasets).to.deep.equal([]);
    const lines = summarizeResult('run', { analyze: result });
    expect(lines.some((l) => l.includes('n='))).to.equal(false);
    const header = lines.findIndex((l) => l.includes('study arms (baseline zero_shot'));
    expect(header).to.be.greaterThan(-1);
    expect(lines[header + 1]).to.match(/arm\s+lines\s+CER\s+\[95 % CI\]\s+raw CER\s+ΔCER vs base\s+\[95 % CI\]\s+p_holm\s+guard fallback/);
    for (const a of armsJson.arms) {
      const row = lines.find((l) => l.trim().startsWith(`${a.name} `));
      expect(row, a.name).to.be.a('string');
      expect(row)
        .to.include(f4(a.cer))
        .and.include(`[${f4(a.cer_ci![0])}, ${f4(a.cer_ci![1])}]`)
        .and.include(f4(a.raw_cer));
      if (a.is_baseline) expect(row).to.include('(baseline)');
      else
        expect(row)
          .to.include(f4(a.vs_baseline!.delta_cer))
          .and.include(`[${f4(a.vs_baseline!.ci![0])}, ${f4(a.vs_baseline!.ci![1])}]`);
    }
  });

  it('rows carry the guard fallback share, the raw CER before the guard, and † on the upper-bound arm', () => {
    const lines = armsTableLines(result.arms!);
    const rag = lines.find((l) => l.startsWith('rag '))!;
    expect(armsJson.arms.find((a) => a.name === 'rag')!.guard!.fell_back).to.be.closeTo(1 / 6, 1e-6);
    expect(rag).to.match(/16\.7 %$/);
    expect(lines.find((l) => l.startsWith('zero_shot '))).to.match(/ -$/); // no guard ran
    expect(lines.find((l) => l.startsWith('oracle †'))).to.match(/0\.0 %$/);
    expect(lines).to.include('† upper bound: retrieval with the gold line as the query');
    // The guard's fallback made the raw output differ from the scored one: raw CER ≠ CER on rag.
    const ragJson = armsJson.arms.find((a) => a.name === 'rag')!;
    expect(ragJson.raw_cer).to.not.equal(ragJson.cer);
  });

  it("the JSON result carries every column of the table, with arms.json's figures", () => {
    const json = JSON.parse(JSON.stringify(result)) as AnalyzeResult;
    for (const a of armsJson.arms) {
      const s = json.arms!.arms.find((x) => x.name === a.name)!;
      expect(s).to.deep.equal({
        name: a.name,
        upper_bound: a.upper_bound,
        lines: a.lines,
        cer: a.cer,
        cer_ci: a.cer_ci,
        raw_cer: a.raw_cer,
        delta_cer: a.vs_baseline?.delta_cer ?? null,
        ci: a.vs_baseline?.ci ?? null,
        p_holm: a.vs_baseline?.p_holm ?? null,
        guard_fell_back: a.guard?.fell_back ?? null,
        replicates: 1,
        cer_sd: null,
        usage: {
          records: a.usage.records,
          prompt_tokens: a.usage.prompt_tokens,
          completion_tokens: a.usage.completion_tokens,
          latency_ms: a.usage.latency_ms,
          cost: a.usage.cost,
        },
      });
    }
  });

  it('prints tokens, latency and cost per arm below the table (cost "-" without infer.price), and tokens with the cost on an infer line', () => {
    const lines = armsTableLines(result.arms!);
    const title = lines.indexOf('tokens, latency and cost per arm:');
    expect(title, lines.join('\n')).to.be.greaterThan(-1);
    expect(lines[title + 1]).to.match(/^arm\s+records\s+prompt tokens\s+completion tokens\s+latency p50\s+p95\s+cost$/);
    // Every fixture record: 1 prompt token, 1 completion token, 1 ms.
    expect(lines.slice(title + 2).find((l) => l.startsWith('rag '))).to.match(/^rag\s+6\s+6\s+6\s+1 ms\s+1 ms\s+-$/);
    const arm = { arm: 'rep', output: 'o.jsonl', written: 40, skippedExisting: 0, failed: 0, model: 'm', elapsedMs: 1 };
    const tagged = { ...arm, replicate: 2, seed: 2, promptTokens: 2400, completionTokens: 600, price: { input: 0.5, output: 2 } };
    expect(summarizeResult('infer', { 'rep#2': tagged })[0]).to.equal(
      'infer rep#2 (seed 2): 40 written, 0 already done, 0 failed (m) · 2,400 + 600 tokens · cost 0.0024 → o.jsonl',
    );
  });

  it('`phase5 report` on a study config prints the table; `--json` holds it', () => {
    const config = path.join(root, 'study.yaml');
    const study = {
      arms: [{ name: 'zero_shot', prompt: 'zero_shot' }, { name: 'rag' }, { name: 'oracle', retrieval: { mode: 'gold_query' } }],
    };
    writeFileSync(config, JSON.stringify({ paths: { results_dir: root }, analysis: { bootstrap_iterations: 50 }, study }));
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '-c', config, ...args], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 60000,
      });
    const text = cli(['report']);
    expect(text.status, text.stderr).to.equal(0);
    expect(text.stdout)
      .to.match(/^oracle †\s+6\s/m)
      .and.match(/^rag\s+6\s.*16\.7 %$/m)
      .and.include('study arms (baseline zero_shot');
    const json = cli(['--json', 'report']);
    expect(json.status, json.stderr).to.equal(0);
    const doc = JSON.parse(json.stdout) as AnalyzeResult;
    expect(doc.arms!.arms.map((a) => a.name)).to.have.members(['zero_shot', 'rag', 'oracle']);
    expect(doc.arms!.arms.find((a) => a.name === 'rag')!.guard_fell_back).to.be.closeTo(1 / 6, 1e-6);
  });

  it('the export summary of a study names every shared export with its arms and verbatim-gold count', () => {
    const shared = (fingerprint: string, mode: string, top_k: number, arms: string[], hits: number) => ({
      fingerprint,
      mode,
      top_k,
      upper_bound: mode === 'gold_query',
      arms,
      path: `/r/exports/${fingerprint}/inference_input.jsonl`,
      records: 10,
      verbatim_gold: { threshold: 0.9, lines: 10, hits, rate: hits / 10, by_dataset: {} },
    });
    const exports = [shared('aa', 'dense', 3, ['zero_shot', 'rag'], 1), shared('bb', 'gold_query', 3, ['oracle'], 4)];
    const result = {
      plan: {},
      shards: 4,
      fallbacks: 2,
      merged: { path: exports[0].path, records: 10, byDataset: { D: 10 }, skipped: {}, exports },
    } as unknown as ExportResult;
    const lines = summarizeResult('export', result);
    expect(lines[0]).to.equal('export: 2 exports of 10 records each (D 10); 4 shards, 2 lines without retrieval in all');
    expect(lines[1]).to.equal(
      '        dense k=3 (arms zero_shot, rag): verbatim gold in context 1/10 lines → /r/exports/aa/inference_input.jsonl',
    );
    expect(lines[2]).to.equal(
      '        gold_query k=3 † (arms oracle): verbatim gold in context 4/10 lines → /r/exports/bb/inference_input.jsonl',
    );
  });
});
