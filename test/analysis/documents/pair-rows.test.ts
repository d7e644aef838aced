/**
 * The design document's rows count every line with the arms analysis's scorer (analysis/documents/pair-counts.ts):
 * the arms analysis's alignment (S/D/I, error changes: analysis/study/design-edits.ts) agrees with those counts, a zero_shot line with a gold text of
 * its own is counted against it as arms.json counts it, and the arms analysis's counts are taken as they are —
 * never for a line whose texts differ.
 */
import { expect } from 'chai';
import path from 'node:path';
import { pairCounts, type ArmPairCounts } from '../../../analysis/documents/pair-counts';
import { scoreDataset, type ScoredLine } from '../../../analysis/documents/pair-rows';
import { lineEdits } from '../../../analysis/study/design-edits';
import { loadDesignInputs } from '../../../analysis/inputs/design-inputs';
import type { Loaded } from '../../../analysis/inputs/records';
import { DEFAULT_ERAS } from '../../../analysis/score/eras';
import { armLineCounts } from '../../../analysis/score/line-counts';
import { scoreProfiles } from '../../../analysis/score/profile-scores';
import { lineKey } from '../../../analysis/inputs/records';
import type { CorrectionRecord } from '../../../src/llm/records';
import { scoreDistances } from '../../../src/text/distance';
import { resolveNormalization } from '../../../src/text/profiles';
import { childLogger } from '../../../src/util/log';
import { FIXTURES } from '../../helpers/shared-data';

const TOY = path.join(FIXTURES, 'analysis', 'study');
const profiles = resolveNormalization({});
const profileList = [profiles.primary, ...profiles.secondary];
const options = { collapseWhitespace: true, profiles, errorAnalysis: true, eras: DEFAULT_ERAS, isSourceBook: null };

async function toy() {
  const inputs = await loadDesignInputs({
    ragDir: path.join(TOY, 'phase5'),
    baselineDir: path.join(TOY, 'phase2'),
    log: childLogger('test'),
  });
  const ds = 'TOY-A';
  return { ds, rag: inputs.rag.byDataset.get(ds)!, p2: inputs.zeroShot!.byDataset.get(ds)! };
}

/** The arms analysis's counts of both arms' lines, as its scorer (scoreProfiles → armLineCounts) counts them. */
function counted(ds: string, rag: Array<Loaded<CorrectionRecord>>, p2: Array<Loaded<CorrectionRecord>>): ArmPairCounts {
  const of = (records: CorrectionRecord[]) => {
    const lines = records.map((record) => ({ record, rawText: null, guard: null, filled: false }));
    const scores = scoreProfiles(new Map([['arm', lines]]), profileList, true).scores.get('arm')!;
    return armLineCounts(
      lines,
      records.map(() => ds),
      records.map((r) => r.sample_id),
      scores,
    );
  };
  return {
    profiles: profileList.map((p) => p.name),
    collapseWhitespace: true,
    rag: of(rag.map((x) => x.record)),
    zeroShot: of(p2.map((x) => x.record)),
  };
}

function rows(ds: string, rag: Array<Loaded<CorrectionRecord>>, p2: Array<Loaded<CorrectionRecord>>, arms = counted(ds, rag, p2)) {
  const byId = new Map(p2.map((x) => [x.record.sample_id, x]));
  const lines = pairCounts(
    ds,
    rag.map((x) => x.record),
    (id) => byId.get(id)?.record ?? null,
    arms,
  );
  // The arms analysis's edits of the pair (analysis/study/design-edits.ts), each line aligned once.
  const prep = { collapseWhitespace: true, profile: profiles.primary };
  const edits = rag.map(({ record: r }) => {
    const z = byId.get(r.sample_id)?.record ?? null;
    const e = lineEdits(r, z, prep);
    return { rag: e, pair: z ? e : null };
  });
  return scoreDataset(ds, rag, byId, null, lines, edits, options);
}

const sdi = (r: ScoredLine, k: 'ocr' | 'rag' | 'base') => r[`${k}_cs`] + r[`${k}_cd`] + r[`${k}_ci`];

describe('analysis/documents/pair-rows: one scorer for the design document', () => {
  it("gives each line's S + D + I of the alignment equal to the scorer's character edits (OCR, rag, zero_shot)", async () => {
    const { ds, rag, p2 } = await toy();
    const s = rows(ds, rag, p2);
    expect(s.rows.filter((r) => r.has_base)).to.have.length.greaterThan(3);
    for (const r of s.rows) {
      expect(sdi(r, 'ocr'), `${r.sample_id} ocr`).to.equal(r.ocr_ce);
      expect(sdi(r, 'rag'), `${r.sample_id} p5`).to.equal(r.rag_ce);
      expect(sdi(r, 'base'), `${r.sample_id} p2`).to.equal(r.has_base ? r.base_ce : 0);
    }
  });

  it("counts a zero_shot line whose gold differs from rag's against its own gold (arms.json's rule), S + D + I alike", async () => {
    const { ds, rag, p2 } = await toy();
    const a2 = p2.find((x) => x.record.sample_id === 'a2')!;
    const ownGold = `${a2.record.gt_text} زيادة`;
    const changed = p2.map((x) => (x === a2 ? { ...x, record: { ...x.record, gt_text: ownGold } } : x));
    const row = rows(ds, rag, changed).rows.find((r) => r.sample_id === 'a2')!;
    const expected = scoreDistances(ownGold, a2.record.corrected_text, { collapseWhitespace: true, profile: profiles.primary });
    expect(row.gold_mismatch).to.equal(true);
    expect(row.base_ce).to.equal(expected.charEdits);
    expect(row.base_we).to.equal(expected.wordEdits);
    expect(sdi(row, 'base')).to.equal(row.base_ce);
    // Against rag's gold it would be the one edit of ة→ه.
    expect(row.base_ce).to.be.greaterThan(1);
  });

  it("takes the arms analysis's counts as they are, and fails on a line it did not count with these texts", async () => {
    const { ds, rag, p2 } = await toy();
    const own = rows(ds, rag, p2);
    const arms = counted(ds, rag, p2);
    const a3 = arms.rag.get(lineKey(ds, 'a3'))!;
    // Counts taken are used as they are (here: marked, to see them in the row).
    arms.rag.set(lineKey(ds, 'a3'), { ...a3, out: a3.out.map((d) => ({ ...d, charEdits: d.charEdits + 100 })) });
    const marked = rows(ds, rag, p2, arms).rows.find((r) => r.sample_id === 'a3')!;
    expect(marked.rag_ce).to.equal(own.rows.find((r) => r.sample_id === 'a3')!.rag_ce + 100);
    // The analysis's a3 was another correction: its counts are not this line's.
    arms.rag.set(lineKey(ds, 'a3'), { ...a3, record: { ...a3.record, corrected_text: 'غير' } });
    expect(() => rows(ds, rag, p2, arms)).to.throw(`internal: the arms analysis did not count ${ds} a3`);
  });
});
