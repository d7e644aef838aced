/**
 * `configs/arms-demo.yaml` end to end, as `npx phase5 demo --config configs/arms-demo.yaml` runs it: the real
 * config at a smaller size (300 corpus sentences, 1 OCR line per dataset), the tiny local GGUF model, its own
 * dev server (free ports, temp db) that the demo starts and the test stops. Build → one export per distinct
 * retrieval → infer per arm (guard on) → analysis of all arms (study/arms.json, the Arms section).
 */
import Ajv from 'ajv';
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { rebasePaths } from '../../src/config/relative-paths';
import { loadConfig } from '../../src/config/load';
import { studyPlan } from '../../src/stages/study/plan';
import { freePort, stopServer } from '../../src/temporal/server';
import { REPO_ROOT, requireSharedData } from '../helpers/shared-data';
import { E5, requireModel } from '../embed/models';

const ARMS_DEMO = path.join(REPO_ROOT, 'configs', 'arms-demo.yaml');
const GGUF_DIR = path.join(REPO_ROOT, 'models');

describe('configs/arms-demo.yaml', function () {
  // A hang guard, not a speed check: the demo's tiny LLM takes ~30 s on a quiet machine, minutes with the cores
  // busy (docs/contributing.md#tests-under-load), so the guard leaves room for a machine loaded many times over.
  this.timeout(1_560_000);

  it('declares the arms the issue asks for (zero_shot, rag, rag_k1, hybrid, placebo) with the guard on', () => {
    const { config } = loadConfig(ARMS_DEMO);
    const arms = studyPlan(config, {}).arms;
    expect(arms.map((a) => a.name)).to.include.members(['zero_shot', 'rag', 'rag_k1', 'hybrid', 'placebo']);
    expect(arms.every((a) => a.guard?.enabled)).to.equal(true);
    expect(Object.fromEntries(arms.map((a) => [a.name, a.retrieval.mode]))).to.include({
      zero_shot: 'none',
      rag: 'dense',
      rag_k1: 'dense',
      hybrid: 'hybrid',
      placebo: 'random',
    });
    // zero_shot reads rag's export: five exports for six arms.
    expect(studyPlan(config, {}).exports!.map((g) => g.arms)).to.deep.equal([
      ['zero_shot', 'rag'],
      ['rag_k1'],
      ['hybrid'],
      ['placebo'],
      ['oracle'],
    ]);
  });

  describe('runs end to end with the tiny local model (phase5 demo, own dev server)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arms-demo-'));
    const configFile = path.join(dir, 'arms-demo.yaml');
    const results = path.join(dir, 'results');
    let out = '';

    before(async function () {
      requireSharedData(this, 'openiti');
      requireSharedData(this, 'ocr-gs');
      requireModel(this, E5);
      if (!existsSync(GGUF_DIR)) this.skip();
      // Its relative paths are relative to configs/: made absolute before the copy is written elsewhere.
      const demo = rebasePaths(YAML.parse(readFileSync(ARMS_DEMO, 'utf8')), path.join(REPO_ROOT, 'configs')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      demo.run_name = 'arms-demo-e2e';
      demo.paths = { results_dir: results };
      demo.corpus.max_sentences = 300;
      demo.analysis = { bootstrap_iterations: 50 };
      demo.temporal = {
        ...demo.temporal,
        address: `127.0.0.1:${await freePort()}`,
        ui_port: await freePort(),
        db_file: path.join(dir, 'temporal.db'),
        queues: { cpu: 'arms-demo-cpu', gpu: 'arms-demo-gpu' },
      };
      writeFileSync(configFile, YAML.stringify(demo));
      const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'phase5.js'), '--config', configFile, 'demo', '--limit', '1'], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { ...process.env, CI: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 1_500_000,
      });
      out = `${r.stdout}\n${r.stderr}`;
      expect(r.status, r.signal ? `the demo was killed (${r.signal}) after 25 min:\n${out.slice(-3000)}` : out.slice(-3000)).to.equal(0);
    });
    after(async () => {
      if (existsSync(configFile)) await stopServer(loadConfig(configFile).config).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });

    it('every arm has arm.json, its export link and guarded corrections for every line', () => {
      const arms = readdirSync(path.join(results, 'arms')).sort();
      expect(arms).to.deep.equal(['hybrid', 'oracle', 'placebo', 'rag', 'rag_k1', 'zero_shot']);
      for (const arm of arms) {
        const d = path.join(results, 'arms', arm);
        expect(lstatSync(path.join(d, 'inference_input.jsonl')).isSymbolicLink(), arm).to.equal(true);
        const recs = readFileSync(path.join(d, 'corrections.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect(recs, arm).to.have.length(3); // one line of each of the three datasets
        for (const r of recs) {
          if (r.error) continue;
          expect(r, arm).to.have.property('raw_text');
          expect(r.guard, arm).to.match(/^(kept|trimmed|fell_back:[a-z_]+)$/);
        }
      }
      expect(readdirSync(path.join(results, 'exports'))).to.have.length(5);
    });

    it('study/arms.json is valid, compares every arm with zero_shot, and the report has the Arms section', () => {
      const doc = JSON.parse(readFileSync(path.join(results, 'study', 'arms.json'), 'utf8'));
      const validate = new Ajv({ strict: false }).compile(
        JSON.parse(readFileSync(path.join(REPO_ROOT, 'analysis', 'arms.schema.json'), 'utf8')),
      );
      expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 3))).to.equal(true);
      expect(doc.baseline).to.equal('zero_shot');
      expect(doc.arms.map((a: { name: string }) => a.name)).to.deep.equal(['hybrid', 'oracle', 'placebo', 'rag', 'rag_k1', 'zero_shot']);
      for (const a of doc.arms) expect(a.lines, a.name).to.equal(3);
      expect(doc.arms.find((a: { name: string }) => a.name === 'oracle').upper_bound).to.equal(true);
      const md = readFileSync(path.join(results, 'study', 'report.md'), 'utf8');
      expect(md).to.include('## Arms');
      expect(existsSync(path.join(results, 'study', 'report.html'))).to.equal(true);
    });

    it('the demo prints the arms table', () => {
      expect(out).to.match(/study arms \(baseline zero_shot/);
      for (const arm of ['hybrid', 'oracle †', 'placebo', 'rag_k1']) expect(out).to.include(arm);
    });
  });
});
