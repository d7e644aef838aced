/** One reference/hypothesis pair brought to scoring form (canonical, optionally profiled) and scored for CER and WER. */
import { alignSequences, SPACE, type Alignment, type EditCounts, type EditOp } from './alignment';
import { canonical } from './canonical';
import { graphemeIds } from './graphemes';
import { levenshtein } from './levenshtein';
import { applyProfile, type NormalizationProfile } from './profiles';
import { idsOf, toCodePoints, toWords, wordIds } from './tokens';

export interface PairScore {
  charEdits: number;
  refChars: number;
  wordEdits: number;
  refWords: number;
  /** Character edit breakdown of the alignment. */
  char: EditCounts;
}

export interface ScoringOptions {
  /** Collapse inner whitespace runs before scoring (default true). */
  collapseWhitespace?: boolean;
  /** Score under this normalisation profile (./profiles); null/undefined = the canonical form only (`nfc`). */
  profile?: NormalizationProfile | null;
}

/** Bring a raw text to the form that is scored under `opts`. */
export function prepareText(s: string, opts: ScoringOptions = {}): string {
  const collapse = opts.collapseWhitespace ?? true;
  return opts.profile ? applyProfile(s, opts.profile, collapse) : canonical(s, collapse);
}

/** The characters of a prepared text as integers: code points, or grapheme-cluster ids under a `grapheme` profile. */
export function charUnits(prepared: string, opts: ScoringOptions = {}): Int32Array {
  return opts.profile?.unit === 'grapheme' ? graphemeIds(prepared) : toCodePoints(prepared);
}

/** Score one pair. `ref`/`hyp` are raw texts; they are brought to scoring form here. */
export function scorePair(ref: string, hyp: string, opts: ScoringOptions = {}): PairScore {
  const r = prepareText(ref, opts);
  const h = prepareText(hyp, opts);
  if (opts.profile?.unit === 'grapheme') return scoreUnits(r, h, charUnits(r, opts), charUnits(h, opts), false).score;
  return scorePrepared(r, h).score;
}

export interface PreparedScore {
  score: PairScore;
  /** Character edits (reference = gold) when requested. */
  ops?: EditOp[];
}

/**
 * Score texts that are already in scoring form. The character alignment is the same one
 * error_changes uses (`withOps`), so CER and the error analysis never disagree.
 */
export function scorePrepared(ref: string, hyp: string, withOps = false): PreparedScore {
  return scoreUnits(ref, hyp, toCodePoints(ref), toCodePoints(hyp), withOps);
}

function scoreUnits(ref: string, hyp: string, rc: Int32Array, hc: Int32Array, withOps: boolean): PreparedScore {
  const c = alignSequences(rc, hc, { separator: SPACE, ops: withOps });
  const w = wordDistance(ref, hyp);
  return {
    score: { charEdits: c.distance, refChars: rc.length, wordEdits: w.edits, refWords: w.refWords, char: strip(c) },
    ops: c.ops,
  };
}

function wordDistance(ref: string, hyp: string): { edits: number; refWords: number } {
  const rw = toWords(ref);
  const [ri, hi] = wordIds(rw, toWords(hyp));
  return { edits: levenshtein(ri, hi), refWords: rw.length };
}

export interface DistanceScore {
  charEdits: number;
  refChars: number;
  wordEdits: number;
  refWords: number;
}

/** Character and word edit distances only (the fast path for secondary figures); texts are raw. */
export function scoreDistances(ref: string, hyp: string, opts: ScoringOptions = {}): DistanceScore {
  const r = prepareText(ref, opts);
  const h = prepareText(hyp, opts);
  const rc = charUnits(r, opts);
  const w = wordDistance(r, h);
  return { charEdits: levenshtein(rc, charUnits(h, opts)), refChars: rc.length, wordEdits: w.edits, refWords: w.refWords };
}

/**
 * `scoreDistances(ref, hyp, opts)` for many hypotheses against one reference (the arms of one study line): the
 * reference is prepared once, a hypothesis met before is not scored again, and one prepared like the reference
 * has no edits. Word ids are shared across the hypotheses, which leaves every distance as it is. `twin`: a scorer
 * of the same reference under options that prepare text the same way (profiles that differ only in their
 * `unit`): its prepared texts and word distances are taken, not computed again.
 */
export function referenceScorer(ref: string, opts: ScoringOptions = {}, twin?: ReferenceScorer): ReferenceScorer {
  const r = twin ? twin.prepared : prepareText(ref, opts);
  const rc = charUnits(r, opts);
  const rw = twin ? [] : toWords(r);
  const refWords = twin ? twin.refWords : rw.length;
  const ids = new Map<string, number>();
  const ri = idsOf(rw, ids);
  const exact: DistanceScore = { charEdits: 0, refChars: rc.length, wordEdits: 0, refWords };
  const seen = new Map<string, DistanceScore>();
  const forms = new Map<string, string>();
  const form = (hyp: string): string => {
    if (twin) return twin.form(hyp);
    let h = forms.get(hyp);
    if (h === undefined) forms.set(hyp, (h = prepareText(hyp, opts)));
    return h;
  };
  const score = (hyp: string): DistanceScore => {
    let s = seen.get(hyp);
    if (s) return s;
    const h = form(hyp);
    s =
      h === r
        ? exact
        : {
            charEdits: levenshtein(rc, charUnits(h, opts)),
            refChars: rc.length,
            wordEdits: twin ? twin.score(hyp).wordEdits : levenshtein(ri, idsOf(toWords(h), ids)),
            refWords,
          };
    seen.set(hyp, s);
    return s;
  };
  return { prepared: r, refWords, form, score };
}

export interface ReferenceScorer {
  /** The reference in scoring form. */
  prepared: string;
  /** Its words. */
  refWords: number;
  /** A hypothesis in scoring form. */
  form: (hyp: string) => string;
  score: (hyp: string) => DistanceScore;
}

function strip(a: Alignment): EditCounts {
  return { distance: a.distance, substitutions: a.substitutions, deletions: a.deletions, insertions: a.insertions, hits: a.hits };
}
