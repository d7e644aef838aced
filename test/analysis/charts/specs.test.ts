import Ajv from 'ajv';
import { expect } from 'chai';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import * as vl from 'vega-lite';
import { analyzeDesignFiles } from '../../../analysis/documents/analyze';
import { buildCharts, CHART_NAMES, CHART_TEMPLATE_DIR, confusionLabel, loadTemplate } from '../../../analysis/charts/specs';
import { loadReportDocs } from '../../../analysis/report/report';
import { compileToVega, renderSvg, svgToPng } from '../../../analysis/charts/render';
import { FIXTURES } from '../../helpers/shared-data';

const require = createRequire(import.meta.url);
const schemaPath = path.join(path.dirname(require.resolve('vega-lite')), 'vega-lite-schema.json');

/** Compile with a logger that collects warnings instead of printing them. */
function compileStrict(spec: object): { warnings: string[]; vega: object } {
  const warnings: string[] = [];
  const logger = {
    level(): number {
      return 0;
    },
    error(...a: unknown[]) {
      warnings.push(`error: ${a.join(' ')}`);
      return logger;
    },
    warn(...a: unknown[]) {
      warnings.push(a.join(' '));
      return logger;
    },
    info() {
      return logger;
    },
    debug() {
      return logger;
    },
  };
  const out = vl.compile(spec as vl.TopLevelSpec, { logger: logger as never });
  return { warnings, vega: out.spec };
}

describe('analysis/charts (Vega-Lite specs are data)', function () {
  this.timeout(60000);
  let validate: ReturnType<Ajv['compile']>;
  let root: string;
  let ragDir: string;

  before(async () => {
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
    root = mkdtempSync(path.join(os.tmpdir(), 'charts-test-'));
    cpSync(path.join(FIXTURES, 'analysis', 'study'), root, { recursive: true });
    ragDir = path.join(root, 'phase5');
    await analyzeDesignFiles({
      ragDir,
      baselineDir: path.join(root, 'phase2'),
      meta: { top_k: 3 },
      bootstrap: { iterations: 100, seed: 1 },
      report: false,
      progress: 'silent',
    });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('has one template file per chart name', () => {
    const files = readdirSync(CHART_TEMPLATE_DIR)
      .filter((f) => f.endsWith('.vl.json'))
      .sort();
    expect(files).to.deep.equal([...CHART_NAMES].map((n) => `${n}.vl.json`).sort());
  });

  for (const name of CHART_NAMES) {
    it(`template ${name} validates against the Vega-Lite schema and compiles`, () => {
      const spec = loadTemplate(name);
      const ok = validate(spec);
      expect(ok, JSON.stringify(validate.errors?.slice(0, 3))).to.equal(true);
      expect((spec.data as { name?: string }).name).to.equal('table');
      expect(compileStrict(spec).warnings).to.deep.equal([]);
    });
  }

  it('every generated spec validates, compiles without warnings and renders to SVG and PNG', async () => {
    const { charts, skipped } = buildCharts(loadReportDocs(ragDir));
    expect(skipped).to.deep.equal([]);
    expect(charts.map((c) => c.name)).to.deep.equal([...CHART_NAMES]);
    for (const c of charts) {
      expect(validate(c.spec), `${c.name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).to.equal(true);
      expect((c.spec.data as { values: unknown[] }).values.length, c.name).to.be.greaterThan(0);
      const { warnings } = compileStrict(c.spec);
      expect(warnings, c.name).to.deep.equal([]);
      const svg = await renderSvg(compileToVega(c.spec));
      expect(svg.startsWith('<svg')).to.equal(true);
      expect(svg).to.include('class="marks"');
      const png = svgToPng(svg, 1);
      expect(png.subarray(1, 4).toString('latin1')).to.equal('PNG');
    }
  });

  it('puts the data of the documents into the specs', () => {
    const { charts } = buildCharts(loadReportDocs(ragDir));
    const rows = (n: string) => (charts.find((c) => c.name === n)!.spec.data as { values: Array<Record<string, unknown>> }).values;
    const toyA = rows('cer_by_arm').filter((r) => r.dataset === 'TOY-A');
    expect(toyA.map((r) => [r.arm, r.cer])).to.deep.equal([
      ['Raw OCR', 0.125],
      ['zero_shot', 0.09375],
      ['rag', 0.0625],
    ]);
    expect(rows('cer_by_arm').some((r) => r.dataset === 'All datasets')).to.equal(true);
    expect(
      rows('era_distribution')
        .filter((r) => r.dataset === 'TOY-A')
        .map((r) => [r.era, r.count]),
    ).to.deep.equal([
      ['0-300', 2],
      ['300-600', 1],
      ['unknown', 2],
    ]);
    const conf = rows('confusions');
    expect(conf.some((r) => r.label === confusionLabel('', 'ا') && r.kind === 'introduced' && r.count === 1)).to.equal(true);
    // Errors by class: a3's ي→ب is a dot-only substitution in the OCR that rag fixed and zero_shot kept.
    const dots = rows('error_classes')
      .filter((r) => r.label === 'dots ب ت ث ن ي')
      .map((r) => [r.source, r.errors, r.fixed]);
    expect(dots).to.deep.equal([
      ['OCR', 1, null],
      ['rag', 0, 1],
      ['zero_shot', 2, 0],
    ]);
  });

  it('skips charts without data instead of drawing empty ones', () => {
    const docs = loadReportDocs(ragDir);
    docs.errorChanges = null;
    docs.errorClasses = null;
    for (const d of docs.datasets) d.retrieval = null;
    const { charts, skipped } = buildCharts(docs);
    expect(skipped).to.deep.equal(['delta_cer_by_score_bucket', 'score_histogram', 'era_distribution', 'confusions', 'error_classes']);
    expect(charts.map((c) => c.name)).to.deep.equal(['cer_by_arm', 'cer_by_ocr_band']);
  });
});
