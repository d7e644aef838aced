import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readHipeReferences } from '../../../analysis/outside/hipe-jsonl';
import { scoreFiles } from '../../../analysis/outside/score-files';
import type { InferenceInputRow } from '../../../src/llm/records';
import { runCorrections } from '../../../src/llm/runner';
import { LlmError, type ChatMessage, type CompletionResult, type LlmBackend } from '../../../src/llm/types';
import { REPO_ROOT } from '../../helpers/shared-data';

const FIX = path.join(REPO_ROOT, 'test', 'fixtures', 'hipe-ocrepair');
const REFERENCE = path.join(FIX, 'reference.jsonl');

/** A corrector that answers each line's gold text, and fails (empty_content: a failed record) on one OCR text. */
class GoldBackend implements LlmBackend {
  readonly id = 'gold';
  readonly model = 'gold-model';
  readonly concurrency = 1;
  constructor(
    private readonly rows: readonly InferenceInputRow[],
    private readonly failOn: string,
  ) {}
  async complete(messages: ChatMessage[]): Promise<CompletionResult> {
    const user = messages[messages.length - 1].content;
    const row = this.rows.find((r) => user.includes(r.ocr_text))!;
    if (row.ocr_text === this.failOn) throw new LlmError('empty_content', 'the model answered nothing');
    return { text: row.gt_text, promptTokens: 1, completionTokens: 1, latencyMs: 1, attempts: 1 };
  }
  async close() {}
}

/** corrections.jsonl as the infer runner writes it: every reference line but the last, one line of another dataset. */
async function writeCorrections(dir: string): Promise<{ file: string; rows: InferenceInputRow[] }> {
  const refs = await readHipeReferences([REFERENCE], { excluded: 0, warnings: [] });
  const rows: InferenceInputRow[] = refs.slice(0, -1).map((r) => ({ ...r, prompt_type: 'zero_shot', retrieval_context: '' }));
  rows.push({ sample_id: 'elsewhere_0', dataset: 'other_ar', ocr_text: 'nowhere in the references', gt_text: 'x' });
  const file = path.join(dir, 'corrections.jsonl');
  await runCorrections({
    inputPath: rows,
    outputPath: file,
    backend: new GoldBackend(rows, rows[1].ocr_text),
    prompt: 'zero_shot',
    progress: 'silent',
  });
  return { file, rows };
}

describe('analysis/outside: phase5 score reads the project’s own corrections.jsonl', function () {
  this.timeout(120_000);

  it('scores the corrected text per (dataset, sample_id); absent, failed and unmatched lines counted in one line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'score-corrections-'));
    const { file } = await writeCorrections(dir);
    const { analysis } = await scoreFiles({
      resultsDir: dir,
      references: [REFERENCE],
      systems: [{ name: 'ours', file }],
      normalization: { primary: 'nfc', secondary: [] },
      bootstrap: { iterations: 50 },
      report: false,
    });
    const lines = analysis.warnings.filter((w) => w.startsWith('system ours:'));
    expect(lines).to.deep.equal([
      'system ours: 1 of 9 reference line(s) missing, 1 failed record(s) (error set), scored as the OCR text; 1 record(s) matched no reference line, left out',
    ]);
    // 9 reference lines: 7 corrected to the gold text (no error), the failed one and the absent one are the OCR's.
    const ours = analysis.arms.find((a) => a.name === 'ours')!;
    const ocr = analysis.arms.find((a) => a.name === 'ocr')!;
    expect(ours.lines).to.equal(9);
    expect(ours.preference.worse_share).to.equal(0);
    expect(ours.cer).to.be.above(0).and.below(ocr.cer!);
  });

  it('tells the format by the first line: a file of neither format is refused, naming its keys', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'score-corrections-'));
    const bad = path.join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"id": "fixture_en_0", "text": "x"}\n');
    const err = await scoreFiles({ resultsDir: dir, references: [REFERENCE], systems: [{ name: 's', file: bad }], report: false }).catch(
      (e: Error) => e,
    );
    expect(String(err)).to.match(/bad\.jsonl:1: neither a HIPE-OCRepair document .* nor a corrections\.jsonl record .*: id, text/);
  });

  it('a corrections record without its corrected_text on a later line names the file, line and field', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'score-corrections-'));
    const { file } = await writeCorrections(dir);
    const f = path.join(dir, 'broken.jsonl');
    const { readFileSync } = await import('node:fs');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    lines[2] = lines[2].replace('"corrected_text"', '"text"');
    writeFileSync(f, lines.join('\n') + '\n');
    const err = await scoreFiles({ resultsDir: dir, references: [REFERENCE], systems: [{ name: 's', file: f }], report: false }).catch(
      (e: Error) => e,
    );
    expect(String(err)).to.match(/broken\.jsonl:3: not a corrections\.jsonl record: corrected_text:/);
  });
});
