/** The export stage's options, plan, shard and result shapes (./export.ts). Types only. */
import type { Config } from '../../config/schema';
import { type SampleSpec } from '../../datasets/sample';
import type { ArmRun, ExportGroup } from '../study/arms';
import { type SharedExport } from '../study/arm-files';
import type { ExportRetriever, StagePaths } from '../build/retriever';
import { type Skips } from '../shared/skips';
import { type WitnessScatter } from '../witness/scattered-hits';

/** Opens the retriever of one export: its (study arm's) config, over the corpus and index at `paths`. */
export type OpenRetriever = (config: Config, paths: StagePaths) => Promise<ExportRetriever>;

export interface ExportShard {
  dataset: string;
  index: number;
  /** Sample range [start, end) in the dataset's deterministic order. */
  start: number;
  end: number;
  /** Settings fingerprint: a finished shard is reused only when it matches. */
  fingerprint: string;
  /** Study arms: the retrieval fingerprint of the export this shard belongs to (`<results>/exports/<group>/`). */
  group?: string;
}

export interface ExportPlan {
  fingerprint: string;
  /** Study arms whose witness index is cut into shards: searched in rounds before the export shards (../witness/scatter.ts). */
  witness?: WitnessScatter[];
  /** `skipped`: the loader's problems (input lines or files left out), by kind with a few examples. */
  datasets: { dataset: string; samples: number; shards: ExportShard[]; skipped?: Skips; group?: string }[];
}

export interface ExportShardResult {
  records: number;
  fallbacks: number;
  reused: boolean;
}

export interface ExportMergeResult {
  path: string;
  records: number;
  /** sha256 of the file at `path` as this run wrote it. */
  sha256: string;
  /** The default export: each default arm's inference_input.jsonl (`<results>/arms/<arm>/`), a link to the latest finished export. */
  links?: string[];
  byDataset: Record<string, number>;
  /** Per dataset with anything skipped: the input lines/files left out, by kind (also in skipped.json beside the export). */
  skipped: Record<string, Skips>;
  /** Study arms: one export per distinct retrieval (`path` is the first one's). */
  exports?: SharedExport[];
}

export interface ExportOptions {
  /** The retrieval, dataset and export settings all shape the records, so the stage reads the config. */
  config: Config;
  paths: StagePaths;
  datasets: string[];
  limit?: number;
  /** `--sample N --seed S`: a random pilot of whole clusters per dataset. */
  sample?: SampleSpec;
  force: boolean;
  /** Study arms: one export per distinct retrieval fingerprint (null without `study:`: the single default export). */
  groups?: ExportGroup[] | null;
  /** Study arms: every arm, whose folder the merge writes (arm.json and a link to its export). */
  arms?: ArmRun[];
}
