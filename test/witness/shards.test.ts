/**
 * A witness index cut into shards (src/witness/shards.ts, sharded-search.ts) gives the hits of one index over the
 * same works: real OpenITI works (the two OCR_GS source works among 30 others, cut so that shard boundaries fall
 * between them) and the first 300 real OCR lines of each book, searched among their neighbours, one shard in
 * memory at a time. Hits are compared whole (text, work, lines, page, score, rank, line number, key offsets).
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadDataset } from '../../src/datasets';
import {
  buildWitnessDir,
  buildWitnessShards,
  cutByWork,
  linesInContext,
  selectWorkFiles,
  ShardedWitnessRetriever,
  WitnessRetriever,
  type LineInContext,
} from '../../src/witness';
import { OCR_GS_ROOT, OPENITI_ROOT, SHARED_DATA } from '../helpers/shared-data';

const OPENITI = OPENITI_ROOT;
const OCR_GS = OCR_GS_ROOT;

describe('witness shards: the same hits as one index (real data)', function () {
  this.timeout(600_000);
  let tmp: string;
  let one: WitnessRetriever;
  let sharded: ShardedWitnessRetriever;
  const lines: LineInContext[] = [];

  before(async function () {
    if (!existsSync(OPENITI) || !existsSync(OCR_GS)) {
      console.log(`      skipped: no real data at ${SHARED_DATA}`);
      this.skip();
    }
    tmp = mkdtempSync(path.join(os.tmpdir(), 'witness-shards-'));
    const { files } = await selectWorkFiles({ openitiRoot: OPENITI, include: ['027*', '028*', '0292Yacqubi*'] });
    const sources = ['0292Yacqubi.Tarikh.JK001493-ara1', '0276IbnQutaybaDinawari.AdabKatib.JK000973-ara1'];
    const step = Math.max(1, Math.ceil(files.length / 30));
    const works = files.filter((f, i) => sources.includes(f.uri) || i % step === 0);
    expect(works.map((f) => f.uri)).to.include.members([
      '0292Yacqubi.Tarikh.JK001493-ara1',
      '0276IbnQutaybaDinawari.AdabKatib.JK000973-ara1',
    ]);
    await buildWitnessDir({ files: works, dir: path.join(tmp, 'one'), fingerprint: 'one' });
    await buildWitnessShards({ files: works, dir: path.join(tmp, 'four'), fingerprint: 'four', shards: 4 });
    one = WitnessRetriever.open(path.join(tmp, 'one'));
    sharded = ShardedWitnessRetriever.open(path.join(tmp, 'four'));
    for (const folder of ['book_Yacqubi.Tarikh', 'book_IbnQutayba.Adab']) {
      const ds = await loadDataset({ key: folder, type: 'paired_dir', path: path.join(OCR_GS, folder) }, { limit: 300 });
      lines.push(
        ...linesInContext(
          ds.samples.map((s) => s.ocr_text),
          1,
        ),
      );
    }
  });

  after(() => {
    one?.close();
    sharded?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('cuts the works into 4 contiguous groups, in order, none empty', () => {
    const groups = cutByWork(
      Array.from({ length: 10 }, (_, i) => ({ file: `/nonexistent/${i}`, uri: `w${i}`, date: 300 })),
      4,
    );
    expect(groups).to.have.length(4);
    expect(groups.flat().map((f) => f.uri)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `w${i}`));
    expect(sharded.manifest.shards).to.have.length(4);
    expect(sharded.manifest.key_chars).to.equal(one.manifest!.key_chars);
    expect(sharded.manifest.postings).to.equal(one.manifest!.postings);
    expect(sharded.manifest.params).to.deep.equal(one.manifest!.params);
  });

  it('600 OCR lines among their neighbours: every hit equals one index’s (top 3, min score 0.5)', () => {
    const want = lines.map((l) => one.retrieveInContext(l, 3, 0.5));
    const got = sharded.retrieveInContext(lines, 3, 0.5);
    expect(want.flat().length, 'hits to compare').to.be.greaterThan(300);
    const works = new Set(got.flat().map((h) => h.source_uri));
    expect(works.size, 'hits come from several shards').to.be.greaterThan(1);
    got.forEach((hits, i) => expect(hits, `line ${i}: ${lines[i].text}`).to.deep.equal(want[i]));
  });

  it('lines searched alone: the same hits as one index (top 5, min score 0)', () => {
    const texts = lines.slice(0, 100).map((l) => l.text);
    expect(sharded.retrieveMany(texts, 5, 0)).to.deep.equal(texts.map((t) => one.retrieve(t, 5, 0)));
  });
});
