/** `probe`: the memorisation probe (`phase5 probe`, docs/memorisation.md): which text is the unpublished control, how lines are cut. */
import { z } from 'zod';
import { positiveInt } from './primitives';

export const ProbeSchema = z.strictObject({
  /** A dataset key (under `datasets:`) of a text the user declares unpublished: the probe's floor besides the shuffled lines. */
  control: z.string().min(1).optional(),
  /** Consecutive gold lines (book order, within a cluster) joined into one probe text; 1 = each line alone. */
  window_lines: positiveInt.default(1),
  /** A continuation with CER at most this (canonical form, profile none) counts as verbatim. */
  verbatim_cer: z.number().min(0).max(1).default(0.1),
  /** The share k of a text's tokens with the lowest scores that Min-K% Prob and Min-K%++ average. */
  min_k: z.number().gt(0).max(1).default(0.2),
  /** Upper bound on the tokens of one continuation (it is asked for about the length of the rest). */
  max_tokens: positiveInt.default(256),
  /** Seed of the word shuffle of the control lines. */
  shuffle_seed: z.number().int().min(0).default(0),
  /** Ask the server for log-probabilities (Min-K% Prob, Min-K%++); false: the continuation test alone. */
  likelihood: z.boolean().default(true),
});

export type ProbeConfig = z.infer<typeof ProbeSchema>;
