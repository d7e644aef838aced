/**
 * Replicates in the arms analysis (analysis/study/replicates.ts, analysis/stats/replicate-stats.ts): the arm's CER is the
 * replicates' mean, its interval resamples clusters and replicates (wider than a bootstrap of the averaged lines
 * when the replicates differ as a whole), arms.json shows each replicate's CER and their SD, and a replicate is
 * no arm of its own (no contrast, no Holm member). Tokens, latency and cost add up over every replicate.
 */
import Ajv from 'ajv';
import { expect } from 'chai';
import { cpSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { analyzeArms } from '../../../analysis/study/arms';
import { armsSection } from '../../../analysis/report/sections/arms';
import { writeArmsLineDocuments } from '../../../analysis/lines/study-arms';
import { indexColumns } from '../../../analysis/explorer/bundle';
import { readLinesJson } from '../../../analysis/lines/lines-json';
import { toMarkdown } from '../../../analysis/report/markdown';
import { blockRateInterval } from '../../../analysis/stats/block-stats';
import { replicateRateInterval, replicateSpread } from '../../../analysis/stats/replicate-stats';
import { REPO_ROOT } from '../../helpers/shared-data';
import { writeReplicatesTree as writeTree } from '../replicates-fixture';

const require = createRequire(import.meta.url);

describe('analysis: replicates of an arm', () => {
  it('the CER interval resamples replicates: wider than a cluster bootstrap of the averaged lines when replicates differ as a whole', () => {
    // 200 lines in 20 clusters of 10; every line has 10 gold characters; replicate r adds r edits to every 5th line.
    const n = 200;
    const ref = new Float64Array(n).fill(10);
    const design = { block: Int32Array.from({ length: n }, (_, i) => Math.floor(i / 10)), stratumOfBlock: new Int32Array(20) };
    const base = Float64Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const reps = [0, 1, 2].map((r) => Float64Array.from(base, (e, i) => e + (i % 5 === 0 ? r : 0)));
    const mean = Float64Array.from(base, (_, i) => (reps[0][i] + reps[1][i] + reps[2][i]) / 3);
    const width = (ci: [number, number] | null) => ci![1] - ci![0];
    const withReplicates = replicateRateInterval(ref, reps, design, 2000, 7).ci95;
    const linesOnly = blockRateInterval(ref, mean, design, 2000, 7).ci95;
    expect(width(withReplicates)).to.be.greaterThan(1.5 * width(linesOnly));
    // The replicates' spread: CERs 0.0335, 0.0535, 0.0735 → SD 0.02.
    const spread = replicateSpread(ref, reps);
    expect(spread.rates.map((x) => +x.toFixed(4))).to.deep.equal([0.0335, 0.0535, 0.0735]);
    expect(spread.sd).to.be.closeTo(0.02, 1e-12);
  });

  it('arms.json: the mean of the replicates as the CER, each replicate with its seed, the between-replicate SD; contrasts only between arms', async () => {
    const root = writeTree([0, 1, 2]);
    const prices = { rep: { input: 0.5, output: 2 } };
    // A toy of few clusters: the interval is asked for anyway (analysis.min_clusters 1).
    const a = await analyzeArms({
      resultsDir: root,
      baseline: 'base',
      bootstrap: { iterations: 300 },
      permutations: 300,
      prices,
      minClusters: 1,
    });
    const rep = a.arms.find((x) => x.name === 'rep')!;
    expect(a.arms.map((x) => x.name)).to.deep.equal(['base', 'rep']);
    expect(rep.cer).to.equal(0.05);
    expect(rep.replicates).to.deep.equal({ n: 3, seeds: [0, 1, 2], cer: [0.075, 0.05, 0.025], cer_sd: 0.025 });
    expect(rep.vs_baseline!.delta_cer).to.equal(-0.05);
    expect(rep.cer_ci![0]).to.be.below(0.05);
    expect(rep.cer_ci![1]).to.be.above(0.05);
    expect(a.contrasts.map((c) => `${c.arm} vs ${c.vs}`)).to.deep.equal(['rep vs base']);
    expect(a.arms.find((x) => x.name === 'base')).to.not.have.property('replicates');
    // Usage over every record of the 3 replicates: 120 records × 20 prompt + 5 completion tokens; cost 2400 × 0.5 + 600 × 2 per 1M.
    expect(rep.usage).to.deep.equal({
      records: 120,
      prompt_tokens: 2400,
      completion_tokens: 600,
      without_tokens: 0,
      latency_ms: { mean: 10, median: 10, p95: 10 },
      price: { input: 0.5, output: 2 },
      cost: 0.0024,
      prompt_prefix_share: null,
    });
    expect(a.arms.find((x) => x.name === 'base')!.usage).to.include({ records: 40, cost: null });
    // The report: the replicates table (seeds, each CER, mean, SD) and the tokens / latency / cost table.
    const md = toMarkdown(armsSection(a, []));
    expect(md).to.include('### Replicates (all datasets)').and.include('| rep | 3 | 0, 1, 2 | 7.50%, 5.00%, 2.50% | 5.00% | 2.500% |');
    expect(md)
      .to.include('### Tokens, latency and cost (all replicates)')
      .and.match(/\| rep \| 120 \| 2,400 \| 600 \| 25\.0 \| 10 ms \| 10 ms \| 0\.0024 \|/);
    const ajv = new Ajv({ allErrors: true, strict: false });
    require('ajv-formats')(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'analysis', 'arms.schema.json'), 'utf8')));
    const written = JSON.parse(readFileSync(path.join(root, 'study', 'arms.json'), 'utf8'));
    expect(validate(written), JSON.stringify(validate.errors)).to.equal(true);
  });

  it("a replicate without corrections yet: the mean of those there are, with a warning; a folder beyond arm.json's count is left out", async () => {
    const root = writeTree([0, 2]);
    // A folder beyond arm.json's 3 replicates (left by a run that asked for more): not scored, and said so.
    cpSync(path.join(root, 'arms', 'rep', 'replicates', '2'), path.join(root, 'arms', 'rep', 'replicates', '3'), { recursive: true });
    const a = await analyzeArms({ resultsDir: root, baseline: 'base', bootstrap: { iterations: 100 }, permutations: 100 });
    const rep = a.arms.find((x) => x.name === 'rep')!;
    expect(rep.replicates!.cer).to.deep.equal([0.075, 0.025]);
    expect(a.warnings.join('\n')).to.match(/arm rep: 2 of 3 replicates have corrections/);
    expect(a.warnings.join('\n')).to.include('arm rep: replicates/3 left out: arm.json asks for 3 replicate(s)');
  });

  it("the Lines view marks the lines whose replicates disagree, with every replicate's text, and the index has the column", async () => {
    const root = writeTree([0, 1, 2]);
    const arms = await analyzeArms({ resultsDir: root, baseline: 'base', bootstrap: { iterations: 50 }, permutations: 50 });
    await writeArmsLineDocuments({ resultsDir: root, arms });
    const doc = readLinesJson(path.join(root, 'study', 'lines.json'));
    const lines = doc.lines as Array<{
      sample_id: string;
      arms: Record<string, { replicates_disagree?: boolean; replicate_texts?: string[] }>;
    }>;
    // Line i: fixed by replicate r when i % 4 < r + 1 → i % 4 = 1 or 2 differ between replicates, 0 and 3 agree.
    const disagree = lines.filter((l) => l.arms.rep.replicates_disagree).map((l) => Number(l.sample_id.slice(1)) % 4);
    expect(disagree).to.have.length(20);
    expect(new Set(disagree)).to.deep.equal(new Set([1, 2]));
    expect(lines.find((l) => l.sample_id === 'l02')!.arms.rep.replicate_texts).to.deep.equal(['abcdefghiX', 'abcdefghiX', 'abcdefghij']);
    expect(lines[0].arms.rep).to.include({ replicates_disagree: false }).and.not.have.property('replicate_texts');
    expect(lines[0].arms.base).to.not.have.property('replicates_disagree');
    const columns = indexColumns(doc);
    expect(columns.arms.rep.disagree.slice(0, 4)).to.deep.equal([0, 1, 1, 0]);
    expect(columns.arms.base).to.not.have.property('disagree');
  });
});
