/**
 * A study arm's non-LLM corrector (`corrector: collate | lexicon`, docs/correctors.md): which one, its model name
 * (`collate@<version>`, written in every record like an LLM's), its settings (the arm's, else the defaults chosen
 * on OCR_GS's dev split) and the corpus a lexicon's vocabulary comes from. An LLM arm has none.
 */
import type { ArmConfig } from '../../config/schema';
import { COLLATE_MODEL, DEFAULT_COLLATE_MIN_SIMILARITY } from '../../correctors/collate';
import { DEFAULT_LEXICON_SETTINGS, LEXICON_MODEL, type LexiconSettings } from '../../correctors/lexicon';

export type CorrectorKind = 'collate' | 'lexicon';

export interface CorrectorRun {
  kind: CorrectorKind;
  model: string;
  collate: { min_similarity: number };
  lexicon: LexiconSettings;
  /** The arm's corpus.jsonl: the lexicon's vocabulary. */
  corpus: string;
}

/** The arm's corrector, or undefined for an LLM arm. */
export function correctorOf(spec: ArmConfig, corpus: string): CorrectorRun | undefined {
  if (spec.corrector === undefined || spec.corrector === 'llm') return undefined;
  return {
    kind: spec.corrector,
    model: spec.corrector === 'collate' ? COLLATE_MODEL : LEXICON_MODEL,
    collate: { min_similarity: spec.collate?.min_similarity ?? DEFAULT_COLLATE_MIN_SIMILARITY },
    lexicon: { ...DEFAULT_LEXICON_SETTINGS, ...spec.lexicon },
    corpus,
  };
}
