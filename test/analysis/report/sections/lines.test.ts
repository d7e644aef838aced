/**
 * report.md's examples per arm (analysis/report/sections/lines.ts): the 10 largest improvements and regressions, most
 * changed first, ties in line order, and only lines that really changed; retrieved sentences and raw output cut.
 */
import { expect } from 'chai';
import { armDeltas, exampleSectionBlocks, largestChanges } from '../../../../analysis/report/sections/lines';

/** A line of lines.json with the fields the examples read: OCR CER, the arms' CERs (null = no line of that arm). */
function line(i: number, ocr: number, arms: Record<string, number | null>, extra: Record<string, unknown> = {}) {
  const diff = [{ op: 'equal', text: `سطر ${i}` }];
  const arm = (cer: number) => ({ cer, diff, guard: null, raw: null, failed: null, retrieval: null, ...extra });
  return {
    dataset: 'D',
    sample_id: `s${String(i).padStart(2, '0')}`,
    ocr: { cer: ocr, diff },
    arms: Object.fromEntries(
      Object.entries(arms)
        .filter(([, c]) => c !== null)
        .map(([k, c]) => [k, arm(c as number)]),
    ),
  };
}

describe('analysis/report-lines: examples per arm', () => {
  // 30 lines: rag better than zero_shot on lines 0–14 by (i + 1) %, worse on 15–24 by growing amounts, equal on 25–29.
  const lines = Array.from({ length: 30 }, (_, i) => {
    const base = 0.5;
    const rag = i < 15 ? base - (i + 1) / 100 : i < 25 ? base + (i - 14) / 100 : base;
    return line(i, 0.4, { zero_shot: base, rag });
  });

  it('keeps the 10 largest of each kind, most changed first, and never an unchanged line', () => {
    const d = armDeltas(lines as never, 'rag', 'zero_shot');
    expect(d).to.have.length(30);
    const imp = largestChanges(d, 'improvements');
    expect(imp.map((e) => e.line.sample_id)).to.deep.equal(['s14', 's13', 's12', 's11', 's10', 's09', 's08', 's07', 's06', 's05']);
    const reg = largestChanges(d, 'regressions');
    expect(reg.map((e) => e.line.sample_id)).to.deep.equal(['s24', 's23', 's22', 's21', 's20', 's19', 's18', 's17', 's16', 's15']);
    expect(reg.every((e) => e.delta > 0)).to.equal(true);
    // Ties keep the line order; fewer changed lines than asked: all of them.
    const ties = armDeltas(
      [line(0, 0.3, { a: 0.1, b: 0.2 }), line(1, 0.3, { a: 0.1, b: 0.2 }), line(2, 0.3, { a: 0.2, b: 0.2 })] as never,
      'a',
      'b',
    );
    expect(largestChanges(ties, 'improvements').map((e) => e.line.sample_id)).to.deep.equal(['s00', 's01']);
  });

  it('a line the arm or the reference lacks has no ΔCER; the baseline is compared with the OCR', () => {
    const d = armDeltas([line(0, 0.3, { rag: 0.1 }), line(1, 0.3, { rag: 0.1, zero_shot: 0.2 })] as never, 'rag', 'zero_shot');
    expect(d.map((e) => e.line.sample_id)).to.deep.equal(['s01']);
    const base = armDeltas([line(0, 0.3, { zero_shot: 0.1 })] as never, 'zero_shot', null);
    expect(base[0].delta).to.be.closeTo(-0.2, 1e-12);
  });

  it('report.md stays small at study scale: 3,000 lines give as many example blocks as 30, and text of the same order', () => {
    const doc = (n: number) => ({
      meta: { baseline: 'zero_shot', arms: [{ name: 'zero_shot' }, { name: 'rag' }, { name: 'other' }] },
      lines: Array.from({ length: n }, (_, i) =>
        line(i, 0.4, { zero_shot: 0.5, rag: 0.5 + ((i % 37) - 18) / 100, other: 0.5 - ((i % 11) - 5) / 100 }),
      ),
    });
    const text = (n: number) =>
      exampleSectionBlocks(doc(n))
        .map((b) => JSON.stringify(b))
        .join('\n');
    expect(exampleSectionBlocks(doc(3000)).length).to.equal(exampleSectionBlocks(doc(30)).length);
    expect(text(3000).length).to.be.below(text(30).length * 1.2);
  });

  it("report.html's section lists at most 10 examples per kind with retrieved sentences and raw output cut; report.md one table without the texts", () => {
    const long = 'ب'.repeat(300);
    const retrieval = [{ score: 0.9, source_uri: 'X.Y', text: long, from_source: false }];
    const doc = {
      meta: { baseline: 'zero_shot', arms: [{ name: 'zero_shot' }, { name: 'rag' }] },
      lines: lines.map((l, i) => ({
        ...l,
        arms: { ...l.arms, rag: { ...l.arms.rag, retrieval, guard: 'trimmed', raw: i % 2 ? long : null } },
      })),
    };
    const blocks = exampleSectionBlocks(doc);
    const md = blocks
      .filter((b) => b.only !== 'md')
      .map((b) => ('text' in b ? b.text : (b as { items: string[] }).items.join('\n')))
      .join('\n');
    expect(md).to.include('rag: 10 largest improvements (vs zero_shot)').and.include('rag: 10 largest regressions (vs zero_shot)');
    // rag: 10 + 10 of its 25 changed lines; zero_shot (vs OCR, worse on all 30 lines): no improvement, 10 regressions.
    expect(md).to.include('zero_shot: 0 largest improvements (vs OCR)').and.include('zero_shot: 10 largest regressions (vs OCR)');
    expect(md.match(/^\*\*\d+\. D \/ s\d\d\*\*/gm)).to.have.length(30);
    const retrieved = md.split('\n').filter((l) => l.startsWith('Retrieved: '));
    expect(retrieved.every((l) => l.includes(`${'ب'.repeat(80)}…`) && !l.includes('ب'.repeat(81)))).to.equal(true);
    const raw = md.split('\n').filter((l) => l.includes('raw model output: '));
    expect(raw.length).to.be.greaterThan(0);
    expect(raw.every((l) => l.endsWith(`${'ب'.repeat(160)}…`))).to.equal(true);
    // report.md: the texts stay out; one table names the same 30 lines, with their ΔCER.
    const mdOnly = blocks.filter((b) => b.only !== 'html');
    expect(mdOnly.map((b) => b.kind)).to.deep.equal(['h2', 'p', 'table']);
    const table = mdOnly[2] as { rows: string[][] };
    expect(table.rows).to.have.length(30);
    expect(table.rows[0]).to.deep.equal(['zero_shot', 'regression 1', 'D / s00', '+10.00 pp', '50.00%', 'OCR 40.00%']);
    expect(JSON.stringify(mdOnly)).to.not.include('ب');
  });
});
