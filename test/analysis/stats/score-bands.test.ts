/**
 * Score bands from one place (analysis/stats/score-bands.ts): retrieval_analysis.json's `by_score_bucket` gains
 * ΔCER's interval, p and reason from the computation behind arms.json's `when.by_score_band` — arms.json's own
 * bands when its one dataset is the file's, the same computation on the dataset's clusters otherwise — and keeps
 * every figure it had.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SCORE_BUCKETS } from '../../../analysis/score/bands';
import { scoreBands } from '../../../analysis/stats/score-bands';
import { studyScopes } from '../../../analysis/study/compare';
import type { ArmsAnalysis } from '../../../analysis/study/types';
import type { Pair } from '../helpers';
import { readJson, runDefaultStudy } from '../default-arms-study';

/** Top-1 scores spread over the bands: 0.85, 0.75, 0.65, 0.5 by line. */
const retrieval = (_p: Pair, i: number) => ({
  scores: [[0.85, 0.75, 0.65, 0.5][i % 4]],
  sources: [{ source_uri: '0255Jahiz.Hayawan', idx: i }],
});

describe('analysis/stats/score-bands: one band computation for arms.json and retrieval_analysis.json', function () {
  this.timeout(120_000);
  const roots: string[] = [];
  after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  async function study(datasets: string[]) {
    const root = mkdtempSync(path.join(os.tmpdir(), 'score-bands-'));
    roots.push(root);
    await runDefaultStudy(root, datasets, retrieval);
    const arms = readJson(path.join(root, 'study', 'arms.json')) as ArmsAnalysis;
    const buckets = (ds: string) =>
      readJson(path.join(root, 'arms', 'rag', ds, 'retrieval_analysis.json')).retrieval_by_error_type.by_score_bucket;
    return { arms, buckets };
  }

  it("states arms.json's rag bands (ΔCER, interval, p, reason) in by_score_bucket when the study has one dataset", async () => {
    const { arms, buckets } = await study(['D1']);
    const bands = arms.arms.find((a) => a.name === 'rag')!.when.by_score_band!;
    const b = buckets('D1');
    for (const band of SCORE_BUCKETS) {
      expect(b[band].n_samples, band).to.equal(bands[band].lines);
      expect(b[band].delta_cer, band).to.equal(bands[band].delta_cer);
      expect(b[band].delta_cer_ci95, band).to.deep.equal(bands[band].ci);
      expect(b[band].delta_cer_p_value, band).to.equal(bands[band].p);
      expect(b[band].delta_cer_reason, band).to.equal(bands[band].reason);
    }
    expect(b['0.8+'].delta_cer_ci95).to.not.equal(null);
  });

  it("computes each dataset's bands with the same function on its own clusters when the study pools several", async () => {
    const { buckets } = await study(['D1', 'D2']);
    for (const ds of ['D1', 'D2']) {
      const b = buckets(ds);
      for (const band of SCORE_BUCKETS) {
        // The bucket's own figures stay; its ΔCER is the band computation's, with an interval around it.
        expect(b[band].delta_cer, `${ds} ${band}`).to.equal(-b[band].cer_improvement || 0);
        const [lo, hi] = b[band].delta_cer_ci95;
        expect(lo, `${ds} ${band}`).to.be.at.most(b[band].delta_cer);
        expect(hi, `${ds} ${band}`).to.be.at.least(b[band].delta_cer);
        expect(b[band].delta_cer_p_value, `${ds} ${band}`).to.be.a('number');
      }
    }
  });

  it('leaves a band without lines empty, and gives the reason when its lines span too few clusters', () => {
    const ids = Array.from({ length: 8 }, (_, i) => `l${i}`);
    const { scopes } = studyScopes(['D'], new Map([['D', [0, 8]]]), ids, { blockLines: 4 });
    const lines = {
      ref: new Float64Array(8).fill(10),
      reference: new Float64Array(8).fill(2),
      arm: new Float64Array(8).fill(1),
      top1: [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9],
    };
    const bands = scoreBands(lines, scopes[1], { iterations: 100, permutations: 100, seed: 1, minClusters: 3 }, 'x');
    expect(bands['0.8+']).to.include({ lines: 8, delta_cer: -0.1, ci: null, p: null });
    expect(bands['0.8+'].reason).to.match(/too few clusters: 2/);
    expect(bands['<0.6']).to.deep.equal({ lines: 0, delta_cer: null, ci: null, p: null, reason: null });
  });
});
