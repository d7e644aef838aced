/**
 * The declared dev split of OCR_GS, on which the benches choose their constants (bench/guard-trim.ts: trimming and
 * guard; bench/baselines.ts: the collate threshold and the lexicon settings): every line whose position in its book
 * (files in name order, from 0) is a multiple of 5 — 1,020 of the 5,092 lines, a fifth of every book. Figures are
 * reported on the rest (4,072 lines).
 */
export const isDevLine = (l: { index: number }) => l.index % 5 === 0;
