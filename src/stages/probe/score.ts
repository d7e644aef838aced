/** The continuation test's score of one text: the continuation cut to the rest's length, its CER against the rest (canonical form, profile none). */
import { canonical } from '../../text/canonical';
import { scorePair } from '../../text/pair-score';

export interface ContinuationScore {
  /** The continuation's first |rest| characters (canonical form). */
  continuation: string;
  edits: number;
  rest_chars: number;
  cer: number;
  /** CER ≤ `verbatimCer`. */
  verbatim: boolean;
}

export function continuationScore(rest: string, generated: string, verbatimCer: number): ContinuationScore {
  const ref = canonical(rest);
  const n = [...ref].length;
  const continuation = [...canonical(generated)].slice(0, n).join('');
  const s = scorePair(ref, continuation);
  const cer = s.refChars > 0 ? s.charEdits / s.refChars : 0;
  return { continuation, edits: s.charEdits, rest_chars: s.refChars, cer, verbatim: cer <= verbatimCer };
}

/** Tokens to ask for: the rest's own token count where the client can count (plus 4), else its characters plus 8; at most `cap`. */
export function continuationTokens(rest: string, cap: number, countTokens?: (text: string) => number): number {
  const want = countTokens ? countTokens(rest) + 4 : [...rest].length + 8;
  return Math.max(1, Math.min(cap, want));
}
