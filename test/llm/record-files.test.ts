import { expect } from 'chai';
import path from 'node:path';
import { CORRECTION_KEYS } from '../../src/llm/records';
import { formatValidation, validateCorrectionsFile } from '../../src/llm/record-files';
import { FIXTURES } from '../helpers/shared-data';

const FILE = path.join(FIXTURES, 'llm', 'corrections-import.jsonl');

describe('llm/record-files: validateCorrectionsFile (phase5 infer --import)', () => {
  it('rejects malformed lines with their line numbers and names the bad fields', async () => {
    const v = await validateCorrectionsFile(FILE);
    expect(v.ok).to.equal(false);
    expect(v.lines).to.equal(9); // 10 lines, one blank
    expect(v.invalid.map((p) => p.line)).to.deep.equal([3, 5, 6, 10]);
    expect(v.invalid[0].message).to.match(/^invalid JSON/);
    expect(v.invalid[1].message).to.match(/^corrected_text: /);
    expect(v.invalid[2].message).to.match(/prompt_type: .*; latency_ms: /);
    expect(v.invalid[3].message).to.match(/^\(record\): /);
    expect(v.duplicates).to.deep.equal([
      {
        line: 7,
        message: 'duplicate sample_id "OCR_GS-Jahiz.Hayawan/000000" (first at line 1)',
        kind: 'repeat a sample_id',
        detail: '"OCR_GS-Jahiz.Hayawan/000000" (first at line 1)',
      },
    ]);
    const report = formatValidation(v);
    expect(report).to.include(`${FILE}:3: invalid JSON`);
    expect(report).to.include(`${FILE}:7: duplicate sample_id`);
  });

  it('returns the valid records in canonical form, defaults filled and unknown keys reported', async () => {
    const v = await validateCorrectionsFile(FILE);
    expect(v.records.map((r) => r.sample_id)).to.deep.equal([
      'OCR_GS-Jahiz.Hayawan/000000',
      'OCR_GS-Jahiz.Hayawan/000001',
      'OCR_GS-Jahiz.Hayawan/000005',
      'OCR_GS-Jahiz.Hayawan/000006',
    ]);
    for (const r of v.records) expect(Object.keys(r)).to.deep.equal([...CORRECTION_KEYS]);
    expect(v.records[1]).to.include({ raw_output: 'ب', latency_ms: null, prompt_tokens: null, completion_tokens: null, error: null });
    expect(v.extraKeys).to.deep.equal(['retrieval_scores']);
    expect(v.failed).to.equal(2); // object error and string error
    expect(v.byPromptType).to.deep.equal({ rag: 3, zero_shot_fallback: 1 });
    expect(v.byDataset).to.deep.equal({ 'OCR_GS-Jahiz.Hayawan': 4 });
  });
});
