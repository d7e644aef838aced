/** The OCR lines of a dataset as witness retrieval sees them: each with its neighbours, in the dataset's order. */
import type { LineInContext } from '../witness';
import { loadSamples, type ExportOptions } from './export';
import { samplesInContext } from './export-records';

export async function datasetLines(options: ExportOptions, dataset: string): Promise<LineInContext[]> {
  const { samples } = await loadSamples(options.config, dataset, options, false);
  return [...samplesInContext(samples).values()];
}
