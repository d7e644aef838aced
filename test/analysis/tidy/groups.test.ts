/**
 * The tidy files written one row group at a time (analysis/tidy/write.ts): a table of more rows than the first
 * group (1,000) and not a whole number of groups comes back whole and in order from both files.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as aq from 'arquero';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import type { TidyRow } from '../../../analysis/tidy';
import { writeTidyFiles } from '../../../analysis/tidy/write';

function* rows(n: number): Generator<TidyRow> {
  for (let i = 0; i < n; i++)
    yield {
      dataset: `ds${i % 3}`,
      sample_id: `line-${i}`,
      cluster: Math.floor(i / 25),
      arm: i < n / 2 ? 'rag' : 'zero_shot',
      replicate: 0,
      ocr_text: `نص ${i}, "quoted"`,
      gold_text: `نص ${i}`,
      corrected_text: `نص ${i}`,
      failed: i % 7 === 0,
      filled: false,
      counts: {
        cer_edits: i % 5,
        gold_chars: 10,
        wer_edits: i % 2,
        gold_words: 2,
        cer_edits_nfc: i % 5,
        gold_chars_nfc: 10,
        wer_edits_nfc: i % 2,
        gold_words_nfc: 2,
      },
      ocr_cer_edits: 3,
      guard: null,
      top_score: i % 4 === 0 ? null : i / 1000,
      score_band: null,
      gold_in_context: null,
      hit_provenance: null,
      model: 'm',
      served_model: null,
      prompt_tokens: i,
      completion_tokens: null,
      latency_ms: 1.5,
      error: null,
      cmer_total: 12,
      wmer_total: 2,
      ocr_cmer_total: 13,
    };
}

describe('analysis/tidy: row groups', () => {
  it('writes 2,345 rows as groups of 1,000 and 1,345; both files read back every row in order', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tidy-groups-'));
    await writeTidyFiles(dir, rows(2345), ['nfc'], { primary_profile: 'nfc' });
    const buf = await asyncBufferFromFile(path.join(dir, 'lines.parquet'));
    const md = await parquetMetadataAsync(buf);
    expect(md.row_groups.map((g) => Number(g.num_rows))).to.deep.equal([1000, 1345]);
    const back = (await parquetReadObjects({ file: buf })) as Array<Record<string, unknown>>;
    expect(back.map((r) => r.sample_id)).to.deep.equal(Array.from(rows(2345), (r) => r.sample_id));
    expect(back[2343]).to.include({ arm: 'zero_shot', cer_edits: 2343 % 5, top_score: 2.343, ocr_text: 'نص 2343, "quoted"' });
    expect(back[2344]).to.include({ top_score: null, failed: false });
    const csv = aq.fromCSV(gunzipSync(readFileSync(path.join(dir, 'lines.csv.gz'))).toString('utf8'));
    expect(csv.numRows()).to.equal(2345);
    expect(csv.array('sample_id')).to.deep.equal(back.map((r) => r.sample_id));
    expect(csv.array('ocr_text')[1999]).to.equal('نص 1999, "quoted"');
  });

  it('writes the columns of an empty table', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tidy-groups-'));
    await writeTidyFiles(dir, rows(0), ['nfc'], {});
    const md = await parquetMetadataAsync(await asyncBufferFromFile(path.join(dir, 'lines.parquet')));
    expect(Number(md.num_rows)).to.equal(0);
    const header = gunzipSync(readFileSync(path.join(dir, 'lines.csv.gz')))
      .toString('utf8')
      .split('\n')[0];
    expect(header.split(',').slice(0, 3)).to.deep.equal(['dataset', 'sample_id', 'cluster']);
  });
});
