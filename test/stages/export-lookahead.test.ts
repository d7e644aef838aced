/**
 * writeShardRecords keeps the encoder busy: the next query batch's retrieval starts before the current
 * batch is awaited and written, while the records stay in input order and a batch the loop never reaches
 * cannot fail the process.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseConfig } from '../../src/config/load';
import type { OcrSample } from '../../src/datasets/types';
import { JsonlAppender } from '../../src/io/jsonl';
import { writeShardRecords } from '../../src/stages/export';
import type { ExportRetriever } from '../../src/stages/retriever';
import { FIXTURES } from '../helpers/shared-data';

const LINE = 'وقال الجاحظ في كتاب الحيوان إن الكلب أشد وفاء';

function config() {
  const results = mkdtempSync(path.join(os.tmpdir(), 'export-lookahead-'));
  return parseConfig(
    { paths: { results_dir: results }, datasets: { demo: { type: 'jsonl', path: path.join(FIXTURES, 'demo', 'ocr.jsonl') } }, phase5: { export: { query_batch_size: 2, checkpoint_every: 100 } } },
    'export-lookahead.yaml',
    { env: {} },
  );
}

const samples = (n: number): OcrSample[] => Array.from({ length: n }, (_, i) => ({ sample_id: `demo/${i}`, dataset: 'demo', ocr_text: `${LINE} ${i}`, gt_text: LINE }));

/** A retriever whose answers wait for `release()`, logging when each batch starts and when it is written. */
function slowRetriever(events: string[], failFrom = Infinity) {
  const waiting: (() => void)[] = [];
  let calls = 0;
  const retriever: ExportRetriever = {
    retrieveMany: async (queries) => {
      const call = calls++;
      events.push(`start ${call}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
      if (call >= failFrom) throw new Error(`batch ${call} failed`);
      return queries.map((q, i) => [{ text: `hit for ${q}`, source_uri: 'x', score: 0.5, rank: 1, idx: call * 10 + i, date: 1 }]);
    },
    formatForPrompt: (chunks) => chunks.map((c) => c.text).join('\n'),
    fingerprint: 'slow',
  };
  const release = setInterval(() => waiting.shift()?.(), 5);
  return { retriever, stop: () => clearInterval(release) };
}

describe('stages/export: retrieval of the next query batch overlaps the current one', function () {
  it('starts batch n+1 before batch n is written, and writes every record in input order', async () => {
    const cfg = config();
    const file = path.join(cfg.paths.results_dir, 'shard.jsonl');
    const out = new JsonlAppender(file);
    const events: string[] = [];
    const { retriever, stop } = slowRetriever(events);
    try {
      await writeShardRecords(samples(6), 0, out, retriever, cfg, () => {}, undefined, () => events.push(`written ${events.filter((e) => e.startsWith('written')).length}`));
    } finally {
      stop();
      out.close();
    }
    expect(events).to.deep.equal(['start 0', 'start 1', 'written 0', 'start 2', 'written 1', 'written 2']);
    const ids = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).sample_id);
    expect(ids).to.deep.equal(samples(6).map((s) => s.sample_id));
  });

  it('a failing batch fails the shard with its own error, and the failing batch fetched ahead is not left rejecting unhandled', async () => {
    const cfg = config();
    const out = new JsonlAppender(path.join(cfg.paths.results_dir, 'shard.jsonl'));
    const { retriever, stop } = slowRetriever([], 0);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      let err: Error | undefined;
      await writeShardRecords(samples(4), 0, out, retriever, cfg, () => {}).catch((e: Error) => (err = e));
      expect(err?.message).to.equal('batch 0 failed');
      await new Promise((r) => setTimeout(r, 50)); // batch 1, fetched ahead, fails meanwhile
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      stop();
      out.close();
    }
  });
});
