/**
 * `phase5 infer --import` against the arm's export (importCorrections called directly): a line whose sample_id is
 * not in the export, or whose dataset or OCR text disagrees with it, is rejected with its line — never imported
 * and silently left out of the analysis; lines without prompt_type / prompt_version get the arm's prompt and the
 * result says so; a file with the same problem on 2,048 lines is told in one short line.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createActivities } from '../../activities';
import type { CorrectionRecord } from '../../src/llm/records';
import { inferenceInputRecord } from '../helpers/records';
import { failsWithLogs, makeConfig, stageInput, tmpDir, withLogs } from './helpers';
import { writeDefaultInput } from '../helpers/default-arms';

const { importCorrections } = createActivities();
const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const N = 2048;

/** A results dir whose rag export has N lines (every 4th without context), and an import file of them. */
function study(prefix: string) {
  const results = tmpDir(prefix);
  const rows = Array.from({ length: N }, (_, i) => ({
    ...inferenceInputRecord(`s${i}`, 'book'),
    ocr_text: `قال ${i}`,
    ...(i % 4 === 3 ? { retrieval_context: '', prompt_type: 'zero_shot_fallback' } : {}),
  }));
  writeDefaultInput(results, jsonl(rows));
  const correction = (i: number) => ({
    sample_id: `s${i}`,
    dataset: 'book',
    model: 'm',
    ocr_text: `قال ${i}`,
    gt_text: `s${i}`,
    corrected_text: `قال ${i}`,
  });
  return { results, config: makeConfig(results, { infer: { arms: ['rag'] } }), file: path.join(results, 'import.jsonl'), correction };
}

describe('bad-input suite: an import must match the arm’s export', () => {
  it('2,048 lines without prompt_type / prompt_version: set from the arm (rag, or zero_shot_fallback where the export has no context), and said', async () => {
    const s = study('import-defaults');
    writeFileSync(s.file, jsonl(Array.from({ length: N }, (_, i) => s.correction(i))));
    const { result } = await withLogs(() => importCorrections(stageInput(s.config, { importFile: s.file })));
    expect(result.imported).to.equal(N);
    expect(result.notes).to.deep.equal(["2,048 line(s) had no prompt_type / prompt_version: set from arm rag's prompt (rag)"]);
    const out = readFileSync(result.output, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as CorrectionRecord);
    expect(out[0]).to.include({ prompt_type: 'rag', prompt_version: 'p5v1' });
    expect(out[3]).to.include({ prompt_type: 'zero_shot_fallback', prompt_version: 'v1' });
  });

  it('a sample_id not in the export, a dataset or an OCR text that disagrees: rejected, naming the lines', async () => {
    const s = study('import-mismatch');
    const rows = Array.from({ length: 10 }, (_, i) => ({ ...s.correction(i), prompt_type: 'rag', prompt_version: 'p5v1' }));
    rows[2].sample_id = 'not-exported';
    rows[5].dataset = 'other-book';
    rows[7].ocr_text = 'نص آخر';
    writeFileSync(s.file, jsonl(rows));
    const { message } = await failsWithLogs(
      () => importCorrections(stageInput(s.config, { importFile: s.file })),
      /10 line\(s\), 7 valid, 3 rejected/,
      /1 line names a sample_id not in arm rag's export \(line 3: "not-exported"\) — check --arm, or export first/,
      /1 line has a dataset that disagrees with the export \(line 6: "s5" is in book, not other-book\)/,
      /1 line has an ocr_text that disagrees with the export \(line 8: "s7"\)/,
    );
    expect(message).not.to.contain('\n');
    expect(existsOutput(s.results), 'nothing imported').to.equal(false);
  });

  it('the same problem on 2,048 lines: one line, under 500 characters, with the count, the lines, the first example and the fix', async () => {
    const s = study('import-aggregate');
    writeFileSync(s.file, jsonl(Array.from({ length: N }, (_, i) => ({ ...s.correction(i), model: undefined }))));
    const { message } = await failsWithLogs(
      () => importCorrections(stageInput(s.config, { importFile: s.file })),
      /2,048 lines lack model \(lines 1–2,048; e.g\. line 1\) — add it$/,
    );
    expect(message.length).to.be.below(500);
  });
});

function existsOutput(results: string): boolean {
  try {
    readFileSync(path.join(results, 'arms', 'rag', 'corrections.jsonl'));
    return true;
  } catch {
    return false;
  }
}
