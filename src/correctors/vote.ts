/**
 * Per-character vote over an OCR line and its witnesses (Xu & Smith 2017's voting baseline): every witness is
 * aligned to the OCR line (src/text/alignment.ts, the alignment behind CER), which gives each witness a reading
 * for every OCR character (the same, another, or nothing) and for every gap between characters (what it inserts
 * there). Each slot takes the reading with the most votes, the OCR line voting as one reader; a tie goes to the
 * reading of the best witness (the first one given). One witness therefore always wins against the OCR: its text
 * comes out as it is.
 */
import { alignSequences, SPACE } from '../text/distance';

/** Each OCR slot's reading by one witness: `sub[i]` for OCR character i, `ins[i]` for the gap before it (i ≤ n). */
interface Readings {
  sub: string[];
  ins: string[];
}

function readings(ocr: string[], witness: string[]): Readings {
  const cps = (a: string[]) => a.map((c) => c.codePointAt(0)!);
  const { ops } = alignSequences(cps(ocr), cps(witness), { ops: true, separator: SPACE });
  const sub = [...ocr];
  const ins = new Array<string>(ocr.length + 1).fill('');
  for (const op of ops!) {
    if (op.type === 'S') sub[op.ref] = witness[op.hyp];
    else if (op.type === 'D') sub[op.ref] = '';
    else ins[op.ref] += witness[op.hyp];
  }
  return { sub, ins };
}

/** The reading with the most votes; ties go to the earliest voter after the OCR (the best witness). */
function majority(ocrReading: string, witnessReadings: string[]): string {
  const votes = new Map<string, number>([[ocrReading, 1]]);
  for (const r of witnessReadings) votes.set(r, (votes.get(r) ?? 0) + 1);
  let best = witnessReadings[0];
  for (const r of witnessReadings) if (votes.get(r)! > votes.get(best)!) best = r;
  return votes.get(ocrReading)! > votes.get(best)! ? ocrReading : best;
}

/** The voted text of `ocr` and `witnesses` (best first; at least one), all in canonical form. */
export function voteCharacters(ocr: string, witnesses: readonly string[]): string {
  const o = Array.from(ocr);
  const rs = witnesses.map((w) => readings(o, Array.from(w)));
  let out = '';
  for (let i = 0; i <= o.length; i++) {
    out += majority(
      '',
      rs.map((r) => r.ins[i]),
    );
    if (i < o.length)
      out += majority(
        o[i],
        rs.map((r) => r.sub[i]),
      );
  }
  return out;
}
