/**
 * The per-dataset output documents (metrics.json, comparison_vs_phase2.json, error_changes.json,
 * retrieval_analysis.json) and the aggregated ones, built from the scored lines with Arquero.
 *
 * Sets of lines:
 * - metrics.json uses every rag line of the dataset;
 * - comparisons (comparison_vs_phase2.json, ΔCER by bucket / half / band) use the lines that have both a
 *   rag and a zero_shot line (all lines when no baseline exists at all; zero_shot figures are then null).
 */
export type { ResolvedMeta, SectionContext } from './context';
export { samplesTable, sums, sumsBy, type Sums } from './sums';
export { comparisonValidity, type Validity } from './validity';
export { rateBlock } from './rates';
export { interpretation } from './comparison';
export { leakageBlock } from './retrieval';
export { scoringNote } from './metrics-json';
export { datasetDocuments, type DatasetDigest, type DatasetDocuments } from './dataset';
export { aggregateDocuments } from './aggregate';
