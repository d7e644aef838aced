/**
 * CER / WER, the alignment behind them and the Arabic normalisation live in src/text (core, so retrieval
 * can use them without importing analysis/); this module re-exports them under their old names for the
 * analysis's public API (analysis/index.ts) and the benchmarks.
 */
export * from '../../src/text/distance';
export { canonical } from '../../src/text/canonical';
export { BUILTIN_PROFILES, applyProfile, type NormalizationProfile } from '../../src/text/profiles';
export { toCodePoints, toWords, wordIds } from '../../src/text/tokens';
export { DEFAULT_ARABIC_NORMALIZATION, isArabicDiacritic, normalizeArabic, type ArabicNormalization } from '../../src/text/arabic';
