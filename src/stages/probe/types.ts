/** The memorisation probe's shared shapes (docs/memorisation.md): a probe text, its record, the stage's options and result. */
import type { Config } from '../../config/schema';
import type { RunOptions } from '../shared/types';

/** `book`: gold text of a study dataset; `shuffled`: the same text with words shuffled per line; `control`: the unpublished dataset. */
export type ProbeKind = 'book' | 'shuffled' | 'control';

/** One probe text: a gold line (or a window of consecutive lines) cut into the prompt and the rest to continue. */
export interface ProbeUnit {
  dataset: string;
  kind: ProbeKind;
  /** The first line's sample_id (a window is named by its first line). */
  unit_id: string;
  /** The lines the text is made of, in book order. */
  sample_ids: string[];
  /** Cluster of the first line (src/datasets/clusters.ts): the block the bootstrap resamples. */
  cluster: number;
  /** The whole text (canonical form), scored by the likelihood test. */
  text: string;
  prompt: string;
  rest: string;
}

/** Min-K% Prob and Min-K%++ of one text; `exact`: from the full next-token distribution (else from the server's top-n). */
export interface LikelihoodScore {
  min_k: number;
  min_k_pp: number;
  tokens: number;
  exact: boolean;
}

/** One line of `<results>/probe/<model>/<dataset>.jsonl`. */
export interface ProbeRecord {
  dataset: string;
  model: string;
  kind: ProbeKind;
  unit_id: string;
  sample_ids: string[];
  cluster: number;
  rest_chars: number;
  continuation: string;
  /** Character edits of the continuation (cut to the rest's length) against the rest, canonical form, profile none. */
  edits: number;
  cer: number;
  verbatim: boolean;
  likelihood: LikelihoodScore | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
}

/** One model × dataset of the probe: the activity's unit of work (GPU queue). */
export interface ProbeJob {
  model: string;
  dataset: string;
  /** The dataset declared unpublished (`probe.control`): its lines are the control, not shuffled. */
  control: boolean;
  output: string;
}

export interface ProbeJobInput {
  run: string;
  config: Config;
  options: RunOptions;
  job: ProbeJob;
  force: boolean;
}

export interface ProbeJobResult {
  job: ProbeJob;
  units: number;
  /** Units already in the file from an earlier, interrupted run. */
  resumed: number;
  /** Why the likelihood test was left out (the server gives no log-probabilities), or null. */
  likelihoodSkipped: string | null;
}
