/** The OCR lines of a dataset as witness retrieval sees them: each with its neighbours, in the dataset's order. */
import type { LineInContext } from '../../witness/index';
import { loadSamples, type ExportOptions } from '../export/export';
import { samplesInContext } from '../export/shard-records';

export async function datasetLines(options: ExportOptions, dataset: string): Promise<LineInContext[]> {
  const { samples } = await loadSamples(options.config, dataset, options, false);
  return [...samplesInContext(samples).values()];
}
