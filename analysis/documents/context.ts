/** What every analysis document is built from: the resolved study meta and the analysis settings. */
import type { Resampling } from '../stats/clusters';
import type { NormalizationProfile, NormalizationSettings } from '../../src/text/profiles';
import type { Era } from '../score/eras';
import type { DesignArms } from './own-arms';

/** Study meta after defaults were resolved from the records. */
export interface ResolvedMeta {
  model: string | null;
  embedding_model: string | null;
  top_k: number | null;
  corpus_size: number | null;
  prompt_version: string | null;
}

export interface SectionContext {
  /** The arms analyses the files are a projection of (./own-arms.ts): their counts, intervals and tests. */
  arms: DesignArms;
  generatedAt: string;
  meta: ResolvedMeta;
  bootstrap: { iterations: number; seed: number } & Resampling;
  /** The first secondary profile (the `normalized` blocks); null without one. */
  normalization: NormalizationProfile | null;
  profiles: NormalizationSettings;
  collapseWhitespace: boolean;
  topConfusions: number;
  eras: readonly Era[];
  errorAnalysis: boolean;
  /** A comparison in which an arm has a larger share of failed lines is marked not valid. */
  maxFailedShare: number;
}
