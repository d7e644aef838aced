import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES } from '../helpers/shared-data';
import {
  buildCorpus,
  CorpusBuildError,
  type CorpusBuildOptions,
  type CorpusSentence,
  dedupKey,
  Digest64Set,
  loadCorpus,
  readCorpus,
  saveCorpus,
  scanEligible,
} from '../../src/openiti';
import { codePointLength } from '../../src/openiti';

const ROOT = path.join(FIXTURES, 'openiti', 'corpus');
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'openiti-corpus-'));
const base = (out: string, extra: Partial<CorpusBuildOptions> = {}): CorpusBuildOptions => ({
  openitiRoot: ROOT,
  outPath: out,
  maxSentences: 1000,
  progressMode: 'silent',
  ...extra,
});
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const records = (file: string) => lines(file).map((l) => JSON.parse(l) as CorpusSentence);
const authorOf = (uri: string) => uri.split('.')[0];
const file = (rel: string) => path.join(ROOT, 'data', rel);
const A1 = file('0010AuthorA/0010AuthorA.BookOne/0010AuthorA.BookOne.Fix001-ara1');
const B = file('0200AuthorB/0200AuthorB.Tarikh/0200AuthorB.Tarikh.Fix004-ara1.completed');

async function eligibleOf(f: string, minCharLen = 30, maxCharLen = 300): Promise<string[]> {
  const out: string[] = [];
  await scanEligible(f, { minCharLen, maxCharLen }, (l) => out.push(l.text()));
  return out;
}

/** A throwaway OpenITI checkout: metadata rows + files (text, or 'dir' for a directory in its place). */
function makeCorpus(entries: Array<{ uri: string; status?: string; content: string | 'dir' }>): string {
  const root = tmp();
  const header = 'version_uri\tdate\tstatus\tlocal_path';
  const rows = entries.map((e) => {
    const [author, book] = e.uri.split('.');
    const rel = `../data/${author}/${author}.${book}/${e.uri}`;
    const p = path.join(root, 'metadata', rel);
    mkdirSync(path.dirname(p), { recursive: true });
    if (e.content === 'dir') mkdirSync(p);
    else writeFileSync(p, e.content);
    return `${e.uri}\t${author.slice(0, 4)}\t${e.status ?? 'pri'}\t${rel}`;
  });
  mkdirSync(path.join(root, 'metadata'), { recursive: true });
  writeFileSync(path.join(root, 'metadata', 'OpenITI_metadata_2023-1-8.csv'), [header, ...rows].join('\n') + '\n');
  return root;
}
const H = '######OpenITI#\n#META# 000.SortField\t:: X\n#META#Header#End#\n';
/** The text file of `uri` in a checkout made by makeCorpus. */
const file0 = (root: string, uri: string) => {
  const [author, book] = uri.split('.');
  return path.join(root, 'data', author, `${author}.${book}`, uri);
};
const S1 = 'قال الشيخ أبو محمد إن العلم زينة الرجال في المجالس';
const S2 = 'وحدثنا عبد الله بن عمر إن الصبر مفتاح كل خير في الدنيا';
const S3 = 'وذكر الراوي عن أبيه إن الكرم نور يهتدى به في الظلمات';

describe('openiti/corpus', () => {
  describe('buildCorpus on the fixture checkout', () => {
    it('counts, logs and skips every problem; reports them with paths', async () => {
      const s = await buildCorpus(base(path.join(tmp(), 'corpus.jsonl')));
      expect(s.metadata).to.include({ rows: 12, badRows: 2, duplicateRows: 1 });
      expect(s.metadata.examples[0]).to.match(/OpenITI_metadata_2023-1-8\.csv:14: expected 17 tab-separated columns, got 5/);
      expect(s.files).to.include({
        considered: 12,
        statusFiltered: 1,
        excluded: 0,
        outsideEras: 0,
        parsed: 6,
        withSentences: 6,
        contributing: 6,
      });
      expect(s.files.skipped).to.deep.equal({
        missing: 1,
        author_not_in_checkout: 1,
        path_outside_root: 1,
        unreadable: 0,
        not_utf8: 1,
        no_header: 1,
      });
      expect(s.files.examples.missing[0]).to.include('0300AuthorE.Lost.Fix007-ara1');
      expect(s.files.examples.path_outside_root[0]).to.include('etc/passwd');
      expect(s.files.examples.not_utf8[0]).to.match(/0250AuthorF\.Latin1\.Fix008-ara1 — not valid UTF-8/);
      expect(s.files.examples.no_header[0]).to.match(/Fix009-ara1 — no OpenITI header/);
    });

    it('writes the §3.3 schema: exact key order, sequential idx, char_len in code points, lengths in range', async () => {
      const out = path.join(tmp(), 'corpus.jsonl');
      const s = await buildCorpus(base(out));
      const recs = records(out);
      expect(recs).to.have.length(s.totalWritten);
      for (const line of lines(out)) expect(Object.keys(JSON.parse(line))).to.deep.equal(['text', 'source_uri', 'date', 'char_len', 'idx']);
      recs.forEach((r, i) => {
        expect(r.idx).to.equal(i);
        expect(r.char_len).to.equal(codePointLength(r.text));
        expect(r.char_len).to.be.within(30, 300);
        expect(r.date).to.equal(Number(r.source_uri.slice(0, 4)));
      });
      expect(s.corpusSha256).to.match(/^[0-9a-f]{64}$/);
      expect(readdirSync(path.dirname(out))).to.deep.equal(['corpus.jsonl']); // the temp file was renamed
    });

    it('orders by era, then source URI, then position in the file', async () => {
      const out = path.join(tmp(), 'corpus.jsonl');
      await buildCorpus(base(out, { maxSentences: 60 }));
      const recs = records(out);
      const eraOf = (d: number) => (d < 300 ? 0 : d < 600 ? 1 : d < 900 ? 2 : 3);
      for (let i = 1; i < recs.length; i++) {
        const a = recs[i - 1];
        const b = recs[i];
        const key = (r: CorpusSentence) => [eraOf(r.date), r.source_uri] as const;
        const [ea, ua] = key(a);
        const [eb, ub] = key(b);
        expect(ea < eb || (ea === eb && ua <= ub), `${a.source_uri} before ${b.source_uri}`).to.equal(true);
      }
      const inA1 = recs.filter((r) => r.source_uri === '0010AuthorA.BookOne.Fix001-ara1').map((r) => r.text);
      const order = await eligibleOf(A1);
      const positions = inA1.map((t) => order.indexOf(t));
      expect(positions.every((p) => p >= 0)).to.equal(true);
      expect(positions).to.deep.equal([...positions].sort((x, y) => x - y));
    });

    it('stratifies by era and redistributes shortfalls (900+ has only 10 sentences here)', async () => {
      const s = await buildCorpus(base(path.join(tmp(), 'c.jsonl'), { maxSentences: 100 }));
      expect(s.eras.map((e) => e.name)).to.deep.equal(['0-300', '300-600', '600-900', '900+']);
      expect(s.eras.map((e) => e.target)).to.deep.equal([10, 30, 30, 30]);
      expect(s.eras.map((e) => e.capacity)).to.deep.equal([98, 30, 30, 10]);
      expect(s.eras.map((e) => e.shortfall)).to.deep.equal([0, 0, 0, 20]);
      expect(s.eras.map((e) => e.received)).to.deep.equal([20, 0, 0, 0]); // the only era with room left
      expect(s.eras.map((e) => e.written)).to.deep.equal([30, 30, 30, 10]);
      expect(s.totalWritten).to.equal(100);
      expect(s.shortfall).to.equal(0);
    });

    it('balances authors within an era (no prolific author dominates)', async () => {
      const out = path.join(tmp(), 'c.jsonl');
      await buildCorpus(base(out, { maxSentences: 100 }));
      const early = records(out).filter((r) => r.date < 300);
      const byAuthor: Record<string, number> = {};
      const byFile: Record<string, number> = {};
      for (const r of early) {
        byAuthor[authorOf(r.source_uri)] = (byAuthor[authorOf(r.source_uri)] ?? 0) + 1;
        byFile[r.source_uri] = (byFile[r.source_uri] ?? 0) + 1;
      }
      // AuthorA has 70 eligible sentences in two books, AuthorB 28: the era's 30 are split 15/15, then 7/8 over A's books.
      expect(byAuthor).to.deep.equal({ '0010AuthorA': 15, '0200AuthorB': 15 });
      const a = [byFile['0010AuthorA.BookOne.Fix001-ara1'], byFile['0010AuthorA.Diwan.Fix003-ara1']].sort();
      expect(a).to.deep.equal([7, 8]);
    });

    it('dedups across the corpus (diacritics ignored) unless told not to', async () => {
      const out = path.join(tmp(), 'c.jsonl');
      const s = await buildCorpus(base(out));
      const texts = records(out).map((r) => dedupKey(r.text));
      expect(new Set(texts).size).to.equal(texts.length);
      expect(s.sentences.duplicateAcrossCorpus).to.equal(3); // AuthorB repeats three lines of AuthorA (one vocalised)
      expect(s.eras[0].written).to.equal(40 + 30 + 25);
      expect(s.sentences.unfilledAfterDedup).to.equal(3);

      const out2 = path.join(tmp(), 'c.jsonl');
      const s2 = await buildCorpus(base(out2, { dedupAcrossCorpus: false }));
      expect(s2.sentences.duplicateAcrossCorpus).to.equal(0);
      expect(s2.eras[0].written).to.equal(98);
      const fromB = records(out2)
        .filter((r) => r.source_uri.startsWith('0200AuthorB'))
        .map((r) => r.text);
      expect(fromB).to.include.members((await eligibleOf(A1)).slice(0, 2));
    });

    it('filters by length (minCharLen / maxCharLen)', async () => {
      const out = path.join(tmp(), 'c.jsonl');
      const s = await buildCorpus(base(out, { minCharLen: 50, maxCharLen: 55 }));
      const recs = records(out);
      expect(recs.length).to.be.greaterThan(0);
      expect(recs.every((r) => r.char_len >= 50 && r.char_len <= 55)).to.equal(true);
      const all = await eligibleOf(A1, 1, 10_000);
      const inRange = all.filter((t) => codePointLength(t) >= 50 && codePointLength(t) <= 55);
      expect(recs.filter((r) => r.source_uri === '0010AuthorA.BookOne.Fix001-ara1').map((r) => r.text)).to.deep.equal(inRange);
      expect(s.sentences.tooShort + s.sentences.tooLong).to.be.greaterThan(0);
    });

    it('is reproducible: same inputs and options → byte-identical corpus; another seed → another sample', async () => {
      const d = tmp();
      const a = await buildCorpus(base(path.join(d, 'a.jsonl'), { maxSentences: 50 }));
      const b = await buildCorpus(base(path.join(d, 'b.jsonl'), { maxSentences: 50 }));
      expect(readFileSync(path.join(d, 'a.jsonl'))).to.deep.equal(readFileSync(path.join(d, 'b.jsonl')));
      expect(a.corpusSha256).to.equal(b.corpusSha256);
      const c = await buildCorpus(base(path.join(d, 'c.jsonl'), { maxSentences: 50, seed: 7 }));
      expect(c.totalWritten).to.equal(a.totalWritten);
      expect(c.corpusSha256).not.to.equal(a.corpusSha256);
    });

    it('honours exclude patterns, statusFilter and maxPerFile', async () => {
      const ex = path.join(tmp(), 'ex.jsonl');
      const s = await buildCorpus(base(ex, { exclude: ['0010AuthorA*'] }));
      expect(s.files.excluded).to.equal(2);
      expect(records(ex).some((r) => r.source_uri.startsWith('0010AuthorA'))).to.equal(false);
      expect(s.files.examples.excluded).to.have.length(2);

      const all = path.join(tmp(), 'all.jsonl');
      const sa = await buildCorpus(base(all, { statusFilter: 'all' }));
      expect(sa.files.statusFiltered).to.equal(0);
      expect(records(all).some((r) => r.source_uri === '0010AuthorA.BookOne.Fix002-ara1')).to.equal(true);

      const sec = path.join(tmp(), 'sec.jsonl');
      await buildCorpus(base(sec, { statusFilter: 'sec' }));
      expect([...new Set(records(sec).map((r) => r.source_uri))]).to.deep.equal(['0010AuthorA.BookOne.Fix002-ara1']);

      const cap = path.join(tmp(), 'cap.jsonl');
      const sc = await buildCorpus(base(cap, { maxPerFile: 5 }));
      const perFile: Record<string, number> = {};
      for (const r of records(cap)) perFile[r.source_uri] = (perFile[r.source_uri] ?? 0) + 1;
      expect(Object.values(perFile).every((n) => n === 5)).to.equal(true);
      expect(sc.totalWritten).to.equal(30); // 6 files × 5
    });

    it('reports progress per stage up to the total', async () => {
      const seen: Array<[number, number, string]> = [];
      await buildCorpus(base(path.join(tmp(), 'c.jsonl')), (d, t, st) => seen.push([d, t, st]));
      const count = seen.filter((x) => x[2] === 'count');
      const select = seen.filter((x) => x[2] === 'select');
      expect(count.length).to.equal(8); // every resolved file, the two that fail to parse included
      expect(select.length).to.equal(6);
      expect(count.at(-1)![0]).to.equal(count.at(-1)![1]);
      expect(select.at(-1)![0]).to.equal(select.at(-1)![1]);
      expect(seen.indexOf(select[0])).to.be.greaterThan(seen.indexOf(count.at(-1)!));
    });
  });

  describe('problems and errors', () => {
    it('dedups repeated lines within a file', async () => {
      const root = makeCorpus([{ uri: '0100A.B.C-ara1', content: `${H}# ${S1}\n# ${S2}\n# ${S1}\n~~${S2} 4\n# ${S3}\n` }]);
      const out = path.join(tmp(), 'c.jsonl');
      const s = await buildCorpus({ openitiRoot: root, outPath: out, progressMode: 'silent' });
      expect(records(out).map((r) => r.text)).to.deep.equal([S1, S2, S3]);
      expect(s.sentences.duplicateInFile).to.equal(2);
    });

    it('counts an unreadable file (a directory in its place) and goes on', async () => {
      const root = makeCorpus([
        { uri: '0100A.B.C-ara1', content: 'dir' },
        { uri: '0100A.D.E-ara1', content: `${H}# ${S1}\n` },
      ]);
      const s = await buildCorpus({ openitiRoot: root, outPath: path.join(tmp(), 'c.jsonl'), progressMode: 'silent' });
      expect(s.files.skipped.unreadable).to.equal(1);
      expect(s.files.examples.unreadable[0]).to.match(/0100A\.B\.C-ara1 — EISDIR/);
      expect(s.totalWritten).to.equal(1);
    });

    it('fails clearly when no sentence survives the filters, writing nothing', async () => {
      const out = path.join(tmp(), 'c.jsonl');
      await buildCorpus(base(out, { exclude: ['*'] })).then(
        () => expect.fail('should throw'),
        (e) => {
          expect(e).to.be.instanceOf(CorpusBuildError);
          expect((e as Error).message).to.match(
            /no sentences left after filters: 12 metadata rows, 0 files parsed .*excluded 11; outside eras 0/,
          );
        },
      );
      await buildCorpus(base(out, { minCharLen: 290, maxCharLen: 300 })).then(
        () => expect.fail('should throw'),
        (e) => expect((e as Error).message).to.match(/shorter than 290/),
      );
      expect(existsSync(out)).to.equal(false);
      expect(readdirSync(path.dirname(out))).to.deep.equal([]);
    });

    it('leaves neither a corpus nor a temp file when cancelled mid-write', async () => {
      const out = path.join(tmp(), 'c.jsonl');
      const ac = new AbortController();
      await buildCorpus(base(out, { signal: ac.signal }), (_d, _t, stage) => {
        if (stage === 'select') ac.abort();
      }).then(
        () => expect.fail('should throw'),
        (e) => expect((e as Error).name).to.equal('AbortError'),
      );
      expect(readdirSync(path.dirname(out))).to.deep.equal([]);
    });

    it('validates options with messages naming the field', async () => {
      const out = path.join(tmp(), 'c.jsonl');
      const bad: Array<[Partial<CorpusBuildOptions>, RegExp]> = [
        [{ minCharLen: 100, maxCharLen: 50 }, /minCharLen \(100\) is greater than maxCharLen \(50\)/],
        [{ statusFilter: 'primary' as never }, /statusFilter must be "pri", "sec" or "all"/],
        [{ maxSentences: 0 }, /maxSentences must be an integer ≥ 1/],
        [{ openitiRoot: path.join(ROOT, 'nope') }, /openitiRoot .*nope is not a directory/],
        [{ metadataPath: path.join(ROOT, 'nope.csv') }, /metadataPath .*nope\.csv does not exist/],
        [{ eras: [{ name: 'all', from: 0, to: 2000, fraction: 0.9 }] }, /fractions sum to 0.9/],
        [{ maxPerFile: 0 }, /maxPerFile must be a positive integer/],
      ];
      for (const [opts, re] of bad) {
        await buildCorpus(base(out, opts)).then(
          () => expect.fail(`should throw for ${JSON.stringify(opts)}`),
          (e) => expect((e as Error).message).to.match(re),
        );
      }
    });

    it('accepts custom eras and counts texts outside them', async () => {
      const out = path.join(tmp(), 'c.jsonl');
      const eras = [
        { name: 'early', from: 0, to: 500, fraction: 0.5 },
        { name: 'middle', from: 500, to: 1000, fraction: 0.5 },
      ];
      const s = await buildCorpus(base(out, { eras, maxSentences: 60 }));
      expect(s.files.outsideEras).to.equal(1);
      expect(s.files.examples.outside_eras[0]).to.match(/1450AuthorZ.*date 1450 is in no configured era/);
      expect(s.eras.map((e) => [e.name, e.target, e.written])).to.deep.equal([
        ['early', 30, 30],
        ['middle', 30, 30],
      ]);
      expect(records(out).some((r) => r.source_uri.startsWith('1450AuthorZ'))).to.equal(false);
    });
  });

  describe('Digest64Set', () => {
    it('adds, finds and grows past its initial capacity', () => {
      const set = new Digest64Set();
      for (let i = 1; i <= 100_000; i++) expect(set.add(i * 2654435761, i)).to.equal(true);
      expect(set.size).to.equal(100_000);
      expect(set.add(5 * 2654435761, 5)).to.equal(false);
      expect(set.has(7 * 2654435761, 7)).to.equal(true);
      expect(set.has(7 * 2654435761, 8)).to.equal(false);
      const fresh = new Digest64Set();
      expect(fresh.has(0, 0)).to.equal(false);
      expect(fresh.add(0, 0)).to.equal(true); // the empty-slot marker is remapped, not lost
      expect(fresh.has(0, 0)).to.equal(true);
    });

    it('takes an initial size (a power of two) and grows from it', () => {
      const small = new Digest64Set(2);
      for (let i = 0; i < 1000; i++) expect(small.add((i >>> 3) + 1, i)).to.equal(true);
      expect(small.size).to.equal(1000);
      for (let i = 0; i < 1000; i++) expect(small.has((i >>> 3) + 1, i)).to.equal(true);
      expect(small.add(8, 63)).to.equal(false);
      expect(small.has(1, 1000)).to.equal(false);
      expect(() => new Digest64Set(1000)).to.throw(RangeError, /power of two/);
      expect(() => new Digest64Set(1)).to.throw(RangeError, /power of two/);
    });
  });

  describe('corpus.jsonl I/O', () => {
    it('save and load round-trip (idx renumbered, char_len recomputed)', async () => {
      const out = path.join(tmp(), 'saved.jsonl');
      const input = [
        { text: S1, source_uri: '0100A.B.C-ara1', date: 100 },
        { text: 'نص فيه حرف خارج المستوى 😀 الأساسي من يونيكود', source_uri: '0100A.B.C-ara1', date: 100 },
      ];
      expect(saveCorpus(out, input)).to.equal(2);
      const loaded = await loadCorpus(out);
      expect(loaded).to.deep.equal(input.map((s, idx) => ({ ...s, char_len: codePointLength(s.text), idx })));
      expect(loaded[1].char_len).to.equal(input[1].text.length - 1);
    });

    it('readCorpus streams a built corpus and rejects a malformed record with file:line and field', async () => {
      const out = path.join(tmp(), 'c.jsonl');
      const s = await buildCorpus(base(out, { maxSentences: 20 }));
      let n = 0;
      for await (const r of readCorpus(out)) expect(r.idx).to.equal(n++);
      expect(n).to.equal(s.totalWritten);
      const bad = path.join(tmp(), 'bad.jsonl');
      writeFileSync(bad, `${lines(out)[0]}\n{"text":"x","source_uri":"u","date":"0001","char_len":1,"idx":1}\n`);
      await loadCorpus(bad).then(
        () => expect.fail('should throw'),
        (e) => expect((e as Error).message).to.equal(`${bad}:2: field "date" must be an integer`),
      );
    });
  });

  it('scanEligible: vocalised repeats are within-file duplicates; hasMarks false means the text is its own dedup key; counting needs no callback', async () => {
    const voc = 'قَالَ الشَّيْخُ أَبُو مُحَمَّدٍ إِنَّ الْعِلْمَ زِينَةُ الرِّجَالِ';
    const bare = dedupKey(voc);
    const root = makeCorpus([
      { uri: '0100A.B.C-ara1', content: `${H}# ${voc}\n# ${S1}\n~~${bare} 12\n# ${S2.replace('الصبر', 'الصـــبر')}\n# ${S2}\n` },
    ]);
    const f = file0(root, '0100A.B.C-ara1');
    const got: Array<[string, number, number, boolean]> = [];
    const scan = await scanEligible(f, { minCharLen: 30, maxCharLen: 300 }, (l) => got.push([l.text(), l.charLen, l.index, l.hasMarks]));
    expect(got).to.deep.equal([
      [voc, codePointLength(voc), 0, true],
      [S1, codePointLength(S1), 1, false],
      [S2.replace('الصبر', 'الصـــبر'), codePointLength(S2) + 3, 2, true],
    ]);
    expect(scan.duplicateInFile).to.equal(2); // the bare copy and the line without tatweel
    expect(scan.eligible).to.equal(3);
    expect(await scanEligible(f, { minCharLen: 30, maxCharLen: 300 })).to.deep.equal(scan);
  });

  it('the vocalised duplicate in the fixture really differs only by diacritics', async () => {
    const b = await eligibleOf(B);
    const a = await eligibleOf(A1);
    const voc = b.at(-1)!;
    expect(voc).not.to.equal(a[2]);
    expect(dedupKey(voc)).to.equal(dedupKey(a[2]));
  });
});
