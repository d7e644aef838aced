/**
 * The character diff the Lines view shows, made from the very alignment CER counts (`scorePrepared`'s
 * ops, src/text/distance.ts), so the highlighted edits are the counted ones. The code-point alignment is
 * cut only where both texts are at a display-unit boundary (src/text/graphemes.ts: grapheme clusters,
 * lam-alef), so a letter and its diacritics are highlighted together and never split across spans.
 *
 * A diff is a list of segments: a string is text the same in gold and output; `[gold, output, edits]` is a
 * changed stretch (gold '' = inserted, output '' = deleted, both = substituted) with the number of
 * code-point edits of the alignment inside it. Summed `edits` = the line's CER numerator.
 */
import type { EditOp } from '../../src/text/distance';
import { unitBoundaries } from '../../src/text/graphemes';

export type DiffSegment = string | [gold: string, output: string, edits: number];

/** One column of the alignment: how many gold / output code points it takes, and whether it is an edit. */
interface Column {
  dg: 0 | 1;
  dh: 0 | 1;
  edit: 0 | 1;
}

/** The alignment's columns in order: matches between the ops, and the ops themselves. */
export function alignmentColumns(refLen: number, hypLen: number, ops: readonly EditOp[]): Column[] {
  const cols: Column[] = [];
  let i = 0;
  let j = 0;
  const matchUpTo = (ri: number, hj: number) => {
    while (i < ri && j < hj) {
      cols.push({ dg: 1, dh: 1, edit: 0 });
      i++;
      j++;
    }
  };
  for (const op of ops) {
    matchUpTo(op.ref, op.hyp);
    if (op.type === 'S') {
      cols.push({ dg: 1, dh: 1, edit: 1 });
      i++;
      j++;
    } else if (op.type === 'D') {
      cols.push({ dg: 1, dh: 0, edit: 1 });
      i++;
    } else {
      cols.push({ dg: 0, dh: 1, edit: 1 });
      j++;
    }
  }
  matchUpTo(refLen, hypLen);
  if (i !== refLen || j !== hypLen) throw new Error(`alignment does not cover the texts (${i}/${refLen}, ${j}/${hypLen})`);
  return cols;
}

/** Segments of `hyp` against `gold` (both in scoring form) from the ops of their character alignment. */
export function diffSegments(gold: string, hyp: string, ops: readonly EditOp[]): DiffSegment[] {
  const g = [...gold];
  const h = [...hyp];
  const gb = unitBoundaries(gold);
  const hb = unitBoundaries(hyp);
  const out: DiffSegment[] = [];
  let gi = 0,
    hj = 0,
    g0 = 0,
    h0 = 0,
    edits = 0;
  for (const c of alignmentColumns(g.length, h.length, ops)) {
    gi += c.dg;
    hj += c.dh;
    edits += c.edit;
    if (!gb[gi] || !hb[hj]) continue; // inside a display unit on one side: keep going
    pushSegment(out, g.slice(g0, gi).join(''), h.slice(h0, hj).join(''), edits);
    g0 = gi;
    h0 = hj;
    edits = 0;
  }
  return out;
}

/** Append a chunk, merging it into the last segment when both are equal text or both are changes. */
function pushSegment(out: DiffSegment[], gold: string, hyp: string, edits: number): void {
  const last = out.length > 0 ? out[out.length - 1] : null;
  if (edits === 0) {
    if (typeof last === 'string') out[out.length - 1] = last + gold;
    else out.push(gold);
  } else if (last !== null && typeof last !== 'string') {
    out[out.length - 1] = [last[0] + gold, last[1] + hyp, last[2] + edits];
  } else {
    out.push([gold, hyp, edits]);
  }
}

/** The gold text, the output text and the edit count a diff stands for. */
export function diffSides(segments: readonly DiffSegment[]): { gold: string; output: string; edits: number } {
  let gold = '',
    output = '',
    edits = 0;
  for (const s of segments) {
    if (typeof s === 'string') {
      gold += s;
      output += s;
    } else {
      gold += s[0];
      output += s[1];
      edits += s[2];
    }
  }
  return { gold, output, edits };
}
