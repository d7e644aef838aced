/**
 * The tidy per-line table (analysis/tidy/, docs/tidy-data.md) on the small arms tree of ./arms-fixture.ts:
 * one row per line × arm, read back from lines.parquet (hyparquet) and lines.csv.gz (arquero); per arm and per
 * profile Σ cer_edits / Σ gold_chars is arms.json's CER; hand-checked rows; the served model where recorded.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as aq from 'arquero';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { analyzeArms, type ArmsAnalysis } from '../../../analysis/study/arms';
import { round } from '../../../analysis/format';
import { ARM_LINES, writeArmsLinesTree } from '../arms-fixture';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function readParquet(file: string): Promise<{ rows: Row[]; meta: Record<string, string> }> {
  const buf = await asyncBufferFromFile(file);
  const md = await parquetMetadataAsync(buf);
  const meta = Object.fromEntries((md.key_value_metadata ?? []).map((kv) => [kv.key, kv.value ?? '']));
  return { rows: (await parquetReadObjects({ file: buf })) as Row[], meta };
}

const sum = (rows: Row[], col: string) => rows.reduce((s, r) => s + Number(r[col]), 0);

describe('analysis/tidy: study/lines.parquet and lines.csv.gz', function () {
  this.timeout(60000);
  let root: string;
  let arms: ArmsAnalysis;
  let rows: Row[];
  let meta: Record<string, string>;
  const LINES = Object.values(ARM_LINES).flat().length;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'tidy-'));
    writeArmsLinesTree(root);
    // The rag arm's server named the model it ran on one line (a newer runner's provenance field).
    const file = path.join(root, 'arms', 'rag', 'corrections.jsonl');
    const recs = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    recs[0].served_model = 'served/m-q4';
    writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // Its export recorded the hits' provenance on one line (export writes it for every rag record now).
    const input = path.join(root, 'arms', 'rag', 'inference_input.jsonl');
    const inputs = readFileSync(input, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    inputs[0].retrieval_sources[0].provenance = 'same_work';
    inputs[0].retrieval_sources[1].provenance = 'same_passage';
    inputs[0].gold_in_context = true;
    writeFileSync(input, inputs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    arms = await analyzeArms({ resultsDir: root, baseline: 'zero_shot', bootstrap: { iterations: 20, seed: 1 }, permutations: 20 });
    ({ rows, meta } = await readParquet(path.join(root, 'study', 'lines.parquet')));
  });

  it('one row per line × arm, in the analysis order; the files are listed in the analysis result', () => {
    expect(rows).to.have.length(LINES * arms.arms.length);
    expect([...new Set(rows.map((r) => r.arm))]).to.deep.equal(arms.arms.map((a) => a.name));
    expect(rows.slice(0, LINES).map((r) => `${r.dataset}/${r.sample_id}`)).to.deep.equal(['D1/l1', 'D1/l2', 'D1/l3', 'D2/m1']);
    expect(rows.every((r) => r.replicate === 0)).to.equal(true);
    expect(arms.files).to.include.members(['study/lines.parquet', 'study/lines.csv.gz']);
    expect(meta.schema).to.equal('openiti-rag/tidy-lines/1');
    expect(meta.profiles.split(',')[0]).to.equal(meta.primary_profile);
  });

  it('per arm, Σ cer_edits / Σ gold_chars is arms.json’s CER (and WER); per profile, the profiles list’s CER', () => {
    for (const a of arms.arms) {
      const mine = rows.filter((r) => r.arm === a.name);
      expect(round(sum(mine, 'cer_edits') / sum(mine, 'gold_chars')), a.name).to.equal(a.cer);
      expect(round(sum(mine, 'wer_edits') / sum(mine, 'gold_words')), a.name).to.equal(a.wer);
      expect(round(sum(mine, 'ocr_cer_edits') / sum(mine, 'gold_chars')), a.name).to.equal(a.ocr_cer);
    }
    const profiles = (arms as unknown as { profiles: { profile: string; arms: { arm: string; cer: number }[] }[] }).profiles;
    expect(profiles.length).to.be.at.least(2);
    for (const p of profiles) {
      for (const a of p.arms) {
        const mine = rows.filter((r) => r.arm === a.arm);
        expect(round(sum(mine, `cer_edits_${p.profile}`) / sum(mine, `gold_chars_${p.profile}`)), `${p.profile} ${a.arm}`).to.equal(a.cer);
      }
    }
  });

  it('hand-checked rows: texts, counts, cluster, guard, context of the arm’s own input, served model', () => {
    const row = (arm: string, id: string) => rows.find((r) => r.arm === arm && r.sample_id === id)!;
    expect(row('rag', 'l3')).to.deep.include({
      dataset: 'D1',
      cluster: 0,
      ocr_text: 'abcdefgXYZ',
      gold_text: 'abcdefghij',
      corrected_text: 'abcdefgXYj',
      cer_edits: 2,
      gold_chars: 10,
      ocr_cer_edits: 3,
      guard: 'kept',
      top_score: 0.91,
      score_band: '0.8+',
      failed: false,
      filled: false,
      error: null,
      model: 'm',
      prompt_tokens: 1,
      latency_ms: 1,
    });
    expect(row('rag', 'm1')).to.deep.include({ guard: 'fell_back:edit_ratio', cer_edits: 1, gold_chars: 50 });
    expect(row('rag', 'l1').served_model).to.equal('served/m-q4');
    expect(row('rag', 'l2').served_model).to.equal(null);
    // The strongest hit class of the recorded ones; nothing recorded: null.
    expect(row('rag', 'l1')).to.deep.include({ hit_provenance: 'same_passage', gold_in_context: true });
    expect(row('rag', 'l2')).to.deep.include({ hit_provenance: null, gold_in_context: null });
    // A zero-shot arm shows no retrieved sentences: no score, no provenance.
    expect(row('zero_shot', 'l1')).to.deep.include({ top_score: null, score_band: null, gold_in_context: null, hit_provenance: null });
    expect(row('oracle', 'l1').cer_edits).to.equal(0);
  });

  it('the same inputs write the same bytes', async () => {
    const files = ['lines.parquet', 'lines.csv.gz'].map((f) => path.join(root, 'study', f));
    const before = files.map((f) => readFileSync(f));
    await analyzeArms({ resultsDir: root, baseline: 'zero_shot', bootstrap: { iterations: 20, seed: 1 }, permutations: 20 });
    files.forEach((f, i) => expect(readFileSync(f).equals(before[i]), f).to.equal(true));
  });

  it('lines.csv.gz holds the same columns and values', () => {
    const csv = aq.fromCSV(gunzipSync(readFileSync(path.join(root, 'study', 'lines.csv.gz'))).toString('utf8'), { autoType: false });
    expect(csv.columnNames()).to.deep.equal(Object.keys(rows[0]));
    expect(csv.numRows()).to.equal(rows.length);
    const back = csv.objects() as Row[];
    rows.forEach((r, i) => {
      expect(back[i].sample_id).to.equal(r.sample_id);
      expect(back[i].corrected_text).to.equal(r.corrected_text);
      expect(Number(back[i].cer_edits)).to.equal(r.cer_edits);
    });
  });
});
