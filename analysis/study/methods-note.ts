/** The methods note arms.json carries about the arms analysis's settings. */
import { canonicalDescription } from '../../src/text/canonical';
import type { Settings } from './settings-type';

export function methodsNote(s: Settings) {
  return {
    cer: 'Levenshtein distance over code points, Σ edits / Σ gold characters; failed corrections score as the OCR text',
    text_preparation: canonicalDescription(s.collapseWhitespace),
    lines:
      s.missingLines === 'ocr'
        ? 'every arm on the same lines; a line an arm lacks is scored as its OCR text and counted (filled_lines)'
        : 'every arm on the same lines; an arm lacking a line fails the analysis',
    clusters: `lines resampled in clusters: a dataset's page (page_pattern on sample_id) or else blocks of ${s.clusters.blockLines} consecutive lines (baseline order)`,
    bootstrap: {
      iterations: s.iterations,
      seed: s.seed,
      method:
        "paired percentile block bootstrap over clusters (95 %); pooled figures resample the clusters within each dataset; macro = mean over datasets of each dataset's figure",
    },
    permutations: s.permutations,
    min_clusters: `intervals, p-values and detectable effects need at least ${s.minClusters} clusters of lines in the scope; below that they are null with the reason (docs/statistics.md)`,
    test: "p = block permutation test of the printed ΔCER (each cluster's two outputs swapped with probability ½; p = (1 + #|T*| ≥ |T|) / (1 + permutations)); secondary per-line statistics: p_wilcoxon = Wilcoxon signed-rank on per-line CER differences, p_sign = exact sign test",
    mde: 'minimum detectable |ΔCER| at 80 % power, two-sided α = 0.05: (z0.975 + z0.80) · SE ≈ 2.80 · SE, SE from the block bootstrap; null (reason "the arms agree on every line") when the SE is 0 because the two arms agree on every line',
    holm: "one family: every planned contrast (contrasts) on every scope (each dataset, pooled, macro); contrasts with an upper-bound (gold_query) arm stay out and get p_holm null; vs_baseline.p_holm is its contrast's",
    bands:
      'OCR line CER bands 0–2 %, 2–5 %, 5–10 %, 10–20 %, > 20 %; improved / unchanged / worsened = fewer / as many / more character edits than the OCR line',
    raw_cer:
      'CER before the guard: raw_text cleaned (think blocks, fences, labels, wrapping quotes; src/llm/clean.ts) but neither trimmed nor checked, where recorded; else of the scored output',
    guard_effect:
      'CER(guarded output) − CER(raw model output after cleaning, unguarded) on the same lines, block bootstrap CI and permutation p',
  };
}
