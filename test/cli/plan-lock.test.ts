/**
 * The frozen plan (`phase5 plan --freeze`, docs/plan.md#frozen-plan) on the simulated box: infer records the
 * lock's sha256 beside each arm, the analysis carries it, and a contrast added after the freeze is exploratory —
 * out of the confirmatory Holm family (p_holm null) — while without the lock the same contrast is in the family.
 * A lock written once corrections exist is flagged.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeArms } from '../../analysis/study/arms';
import { createBackend } from '../../src/llm';
import { readPlanLock } from '../../src/plan/plan-lock';
import { optionsFrom, run as runInfer } from '../../src/stages/infer/infer';
import { computePlan } from '../../bin/cli/plan';
import { freezePlan } from '../../bin/cli/plan-lock';
import type { Config } from '../../src/config/schema';
import { loadOcrGs } from '../helpers/ocrgs-arms';
import { studyConfig, writeExports, writeStudyDatasets } from '../helpers/plan-study';
import { requireSharedData } from '../helpers/shared-data';
import { startSimLlmServer } from '../helpers/sim-llm-server';

const analyze = (config: Config, withLock: boolean) =>
  analyzeArms({
    resultsDir: config.paths.results_dir,
    baseline: 'zero_shot',
    bootstrap: { iterations: 200, seed: 1 },
    permutations: 200,
    write: false,
    contrasts: config.study!.contrasts,
    planLock: withLock ? readPlanLock(config) : null,
    minClusters: config.analysis.min_clusters,
  });

describe('phase5 plan --freeze (simulated box)', function () {
  this.timeout(120_000);

  it('a contrast added after the freeze is exploratory and out of the Holm family; infer and arms.json carry the sha256', async function () {
    requireSharedData(this, 'ocr-gs');
    const root = mkdtempSync(path.join(os.tmpdir(), 'plan-lock-'));
    const box = await startSimLlmServer({ concurrency: 8 });
    try {
      const { lines, datasets } = writeStudyDatasets(await loadOcrGs(['IbnQutayba.Adab', 'Jahiz.Hayawan']), root, 40);
      const results = path.join(root, 'results');
      const planned = studyConfig(results, box, datasets, { contrasts: [{ arm: 'rag', vs: 'zero_shot' }] }).config;
      await writeExports(planned, lines);
      const lock = freezePlan(planned, {}, await computePlan(planned, {}, { probe: false }));
      expect(lock.afterCorrections).to.equal(false);
      expect(lock.sha256).to.match(/^[0-9a-f]{64}$/);
      const frozen = JSON.parse(readFileSync(lock.file, 'utf8')) as Record<string, unknown>;
      expect(Object.keys(frozen)).to.include.members(['arms', 'contrasts', 'normalization', 'alpha', 'family', 'sampling', 'planned']);

      await runInfer(optionsFrom(planned, {}), {}, (cfg) =>
        createBackend(cfg.type === 'openai' ? { ...cfg, env: { OPENAI_API_KEY: 'k' } } : cfg),
      );
      // After the results: one more contrast in the config.
      const later = studyConfig(results, box, datasets, {
        contrasts: [
          { arm: 'rag', vs: 'zero_shot' },
          { arm: 'placebo', vs: 'zero_shot' },
        ],
      }).config;
      later.analysis.min_clusters = 1; // 40 lines per book are too few clusters for a p; the test is about the family
      const a = await analyze(later, true);
      const byPair = (x: typeof a, arm: string) => x.contrasts.find((c) => c.arm === arm)!;
      expect(byPair(a, 'rag')).to.include({ in_family: true });
      expect(byPair(a, 'rag').p_holm).to.be.a('number');
      expect(byPair(a, 'placebo')).to.include({ in_family: false, exploratory: true, p_holm: null });
      expect(a.plan_lock!.sha256).to.equal(lock.sha256);
      expect(a.plan_lock!.not_under_lock).to.deep.equal([]);
      expect(a.plan_lock!.exploratory.contrasts).to.deep.equal([{ arm: 'placebo', vs: 'zero_shot' }]);
      expect(a.plan_lock!.totals.actual_requests).to.equal(a.plan_lock!.totals.planned_requests);
      // The actual time runs from the first arm's start under the lock to the last correction written.
      expect(a.plan_lock!.totals.actual_seconds).to.be.a('number').and.to.be.at.least(0);
      // Without the lock the same contrast is confirmatory: the lock is what keeps it out.
      const free = await analyze(later, false);
      expect(byPair(free, 'placebo')).to.include({ in_family: true });
      expect(byPair(free, 'placebo').p_holm).to.be.a('number');
      expect(free.plan_lock).to.equal(undefined);

      // Freezing again now that corrections exist is flagged, and the arms were corrected under the first lock.
      const again = freezePlan(later, {}, await computePlan(later, {}, { probe: false }));
      expect(again.afterCorrections).to.equal(true);
      const b = await analyze(later, true);
      expect(b.plan_lock!.after_first_correction).to.equal(true);
      expect(b.plan_lock!.not_under_lock).to.have.members(['zero_shot', 'rag', 'placebo']);
    } finally {
      await box.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
