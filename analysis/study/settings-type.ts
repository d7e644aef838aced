/** The arms analysis's settings, resolved from its options (./settings.ts). */
import type { MissingLines } from './alignment';
import type { PrimaryMetric } from './measure-contrasts';
import type { ClusterSpec } from '../stats/clusters';
import type { NormalizationProfile } from '../../src/text/profiles';

export interface Settings {
  iterations: number;
  permutations: number;
  seed: number;
  /** Fewest clusters for an interval, p and detectable effect. */
  minClusters: number;
  collapseWhitespace: boolean;
  clusters: ClusterSpec;
  missingLines: MissingLines;
  /** The primary normalisation profile: every figure is scored under it. */
  profile: NormalizationProfile;
  /** What the planned contrasts measure: ΔCER (default) or ΔcMER. */
  primaryMetric: PrimaryMetric;
}
