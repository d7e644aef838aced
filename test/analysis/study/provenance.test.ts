import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeProvenance, formatProvenanceTable } from '../../../analysis/study/provenance';
import { provenanceSection } from '../../../analysis/report/sections/provenance';

const WORDS = ['قال', 'أبو', 'محمد', 'عبد', 'الله', 'بن', 'مسلم', 'حدثنا', 'أخبرنا', 'كتاب', 'الأدب', 'الكاتب', 'في', 'باب', 'ما', 'جاء'];
const gold = (i: number) => Array.from({ length: 8 }, (_, j) => WORDS[(i * 5 + j * 3) % WORDS.length]).join(' ');
const ocr = (i: number) => gold(i).replace(/ب/g, 'ت').replace(/ق/g, 'ف');
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const N = 20;

/** Arm `rag` copies the gold when its context holds it (lines 0–9: the source's passage), else keeps the OCR. */
function writeArm(root: string, name: string, prompt: 'rag' | 'zero_shot') {
  const dir = path.join(root, 'arms', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'arm.json'), JSON.stringify({ name, prompt, retrieval: { mode: prompt === 'rag' ? 'witness' : 'none' } }));
  const inputs = [];
  const corrections = [];
  for (let i = 0; i < N; i++) {
    const inContext = prompt === 'rag' && i < 10;
    const hit = inContext ? `${gold(i)} وزيادة` : 'سبحان ربك رب العزة عما يصفون';
    inputs.push({
      sample_id: `s${i}`,
      dataset: 'D',
      ocr_text: ocr(i),
      gt_text: gold(i),
      retrieval_context: `نصوص مرجعية صحيحة:\n1. ${hit}`,
      retrieval_sources: [{ source_uri: inContext ? '0276IbnQutayba.Adab.v1' : '0300Other.Book.v1', idx: i }],
    });
    corrections.push({
      sample_id: `s${i}`,
      dataset: 'D',
      ocr_text: ocr(i),
      gt_text: gold(i),
      corrected_text: inContext ? gold(i) : ocr(i),
      error: null,
      prompt_type: prompt,
      prompt_version: 'v1',
      model: 'm',
      raw_output: '',
      latency_ms: 1,
      prompt_tokens: 1,
      completion_tokens: 1,
    });
  }
  writeFileSync(path.join(dir, 'inference_input.jsonl'), jsonl(inputs));
  writeFileSync(path.join(dir, 'corrections.jsonl'), jsonl(corrections));
}

describe('analysis/provenance: ΔCER by gold passage in context and hit class', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'provenance-'));
    writeArm(root, 'zero_shot', 'zero_shot');
    writeArm(root, 'rag', 'rag');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('finds the gain where the context held the gold passage and none elsewhere, with CIs', async () => {
    const a = await analyzeProvenance({
      resultsDir: root,
      baseline: 'zero_shot',
      sources: { D: '0276IbnQutayba.Adab*' },
      // 20 lines, one cluster: intervals on purpose (demo-size.test.ts checks the default minimum).
      bootstrap: { iterations: 200, seed: 1, minClusters: 1 },
    });
    const rag = a.arms.find((x) => x.arm === 'rag')!;
    expect(rag.gold_in_context_rate).to.equal(0.5);
    expect(rag.by_gold_in_context.yes.lines).to.equal(10);
    expect(rag.by_gold_in_context.yes.cer).to.equal(0);
    expect(rag.by_gold_in_context.yes.delta!).to.be.below(0);
    expect(rag.by_gold_in_context.yes.ci95![1]).to.be.below(0);
    expect(rag.by_gold_in_context.no.delta).to.equal(0);
    expect(Object.keys(rag.by_class).sort()).to.deep.equal(['other_work', 'same_passage']);
    const zs = a.arms.find((x) => x.arm === 'zero_shot')!;
    expect(zs.by_gold_in_context.yes.lines).to.equal(0);
    expect(Object.keys(zs.by_class)).to.deep.equal(['no_context']);
    expect(JSON.parse(readFileSync(path.join(root, 'study', 'provenance.json'), 'utf8')).arms).to.have.length(2);
    expect(formatProvenanceTable(a)).to.include('rag | yes | 10 | 0.00');
    const blocks = provenanceSection(a);
    expect(blocks[0]).to.deep.equal({ kind: 'h3', text: 'When does retrieval help? ΔCER by gold passage in context' });
  });

  it('its intervals resample clusters of lines (docs/statistics.md), not lines: one cluster gives a point, 10 give an interval', async () => {
    const yesOf = async (blockLines: number) => {
      const a = await analyzeProvenance({
        resultsDir: root,
        baseline: 'zero_shot',
        sources: { D: '0276IbnQutayba.Adab*' },
        bootstrap: { iterations: 200, seed: 1, minClusters: 1, clusters: { blockLines } },
        write: false,
      });
      return a.arms.find((x) => x.arm === 'rag')!.by_gold_in_context.yes;
    };
    // The 10 lines with the gold in context are one cluster of 25 lines: every resample draws that cluster.
    const one = await yesOf(25);
    expect(one.clusters).to.equal(1);
    expect(one.ci95).to.deep.equal([one.delta, one.delta]);
    const ten = await yesOf(1);
    expect(ten.clusters).to.equal(10);
    expect(ten.delta).to.equal(one.delta);
    expect(ten.ci95![0]).to.be.below(ten.ci95![1]);
  });
});
