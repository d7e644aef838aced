/**
 * The frozen plan reaches the study's outputs through the two paths a real run takes: the analyze activity
 * (`phase5 run` / `phase5 analyze`) and `phase5 report` (the CLI, as a process). Both read the config, so both
 * must carry `plan_lock` into arms.json, the report's Plan part and the exploratory labels of a contrast the
 * lock lacks. The arms analysis's options reach it as one object, so a field of them cannot be left behind.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { createActivities } from '../../activities';
import { computePlan } from '../../bin/cli/plan';
import { freezePlan } from '../../bin/cli/plan-lock';
import { parseConfig } from '../../src/config/load';
import { createBackend } from '../../src/llm';
import { optionsFrom, run as runInfer } from '../../src/stages/infer/infer';
import { recordingEnv, stageInput } from '../activities/helpers';
import { loadOcrGs } from '../helpers/ocrgs-arms';
import { ARMS, writeExports, writeStudyDatasets } from '../helpers/plan-study';
import { REPO_ROOT, requireSharedData } from '../helpers/shared-data';
import { startSimLlmServer } from '../helpers/sim-llm-server';

interface ArmsJson {
  plan_lock?: { sha256: string; exploratory: { contrasts: { arm: string; vs: string }[] } };
  contrasts: { arm: string; vs: string; in_family: boolean; exploratory?: boolean }[];
}

describe('analyze stage: the frozen plan reaches arms.json and the report (activity and phase5 report)', function () {
  this.timeout(600_000);

  it('arms.json carries plan_lock with its sha256; the report has its Plan part; a contrast added later is exploratory', async function () {
    requireSharedData(this, 'ocr-gs');
    const root = mkdtempSync(path.join(os.tmpdir(), 'plan-lock-stage-'));
    const box = await startSimLlmServer({ concurrency: 8 });
    try {
      const { lines, datasets } = writeStudyDatasets(await loadOcrGs(['IbnQutayba.Adab', 'Jahiz.Hayawan']), root, 40);
      const raw = (contrasts: { arm: string; vs: string }[]) => ({
        paths: { results_dir: path.join(root, 'results') },
        datasets: Object.fromEntries(Object.entries(datasets).map(([k, p]) => [k, { type: 'jsonl', path: p }])),
        infer: { backend: 'openai', openai: { base_url: box.url, model: 'sim', max_tokens: 64, adaptive_concurrency: false } },
        analysis: { bootstrap_iterations: 100, permutations: 100, min_clusters: 1 },
        study: { arms: ARMS, contrasts },
      });
      const planned = parseConfig(raw([{ arm: 'rag', vs: 'zero_shot' }]), 'planned.yaml', { env: {} });
      await writeExports(planned, lines);
      const lock = freezePlan(planned, {}, await computePlan(planned, {}, { probe: false }));
      await runInfer(optionsFrom(planned, {}), {}, (cfg) =>
        createBackend(cfg.type === 'openai' ? { ...cfg, env: { OPENAI_API_KEY: 'k' } } : cfg),
      );
      // After the freeze, one more contrast in the config: the analysis must label it exploratory.
      const laterRaw = raw([
        { arm: 'rag', vs: 'zero_shot' },
        { arm: 'placebo', vs: 'zero_shot' },
      ]);
      const configFile = path.join(root, 'later.yaml');
      writeFileSync(configFile, stringify(laterRaw));
      const later = parseConfig(laterRaw, configFile, { env: {} });
      const armsFile = path.join(root, 'results', 'study', 'arms.json');
      const reportFile = path.join(root, 'results', 'study', 'report.md');

      const expectLocked = (via: string) => {
        const arms = JSON.parse(readFileSync(armsFile, 'utf8')) as ArmsJson;
        expect(arms.plan_lock?.sha256, `${via}: arms.json plan_lock`).to.equal(lock.sha256);
        expect(arms.plan_lock!.exploratory.contrasts, via).to.deep.equal([{ arm: 'placebo', vs: 'zero_shot' }]);
        expect(
          arms.contrasts.find((c) => c.arm === 'placebo'),
          via,
        ).to.include({ in_family: false, exploratory: true });
        const report = readFileSync(reportFile, 'utf8');
        expect(report, `${via}: the report's Plan part`).to.include(`sha256 ${lock.sha256}`);
        expect(report, via).to.match(/Exploratory \(not in the frozen plan[^\n]*contrast placebo vs zero_shot/);
      };

      // The analyze activity: what `phase5 run` and `phase5 analyze` execute on a worker.
      const { run } = recordingEnv();
      await run(createActivities().analyzeResults, stageInput(later));
      expectLocked('analyze activity');

      // `phase5 report`: the same analysis from the CLI, without Temporal.
      rmSync(armsFile);
      const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, 'report'], {
        encoding: 'utf8',
        timeout: 540_000,
      });
      expect(r.status, r.stderr).to.equal(0);
      expectLocked('phase5 report');
    } finally {
      await box.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
