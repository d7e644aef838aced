/**
 * The tidy table's rows (./columns.ts) from the arms analysis's own lines and scores, so the table and
 * arms.json cannot disagree: the primary profile's counts are the scored rows' (analysis/score/arm-line.ts);
 * every other profile's are the counts arms.json's `profiles` list sums (analysis/score/profile-scores.ts: a failed
 * or missing line as its OCR text).
 */
import type { NormalizationProfile } from '../../src/text/profiles';
import type { AlignedArms } from '../study/alignment';
import type { ArmRow } from '../score/arm-line';
import type { Scope } from '../study/compare';
import type { ArmLine, LoadedArm } from '../inputs/arm-inputs';
import { replicateName } from '../study/replicates';
import { scoreBucket } from '../score/bands';
import type { ProfileCounts, ProfileScores } from '../score/profile-scores';
import { failureKind } from '../score/failed-line';
import { COUNT_NAMES, type TidyRow } from './columns';
import { lineContexts, type LineContext } from './context';
import { lineKey } from '../inputs/records';
import type { LineProbeScore, ProbeLineScores } from '../probe/line-scores';

export interface TidyInput {
  arms: LoadedArm[];
  aligned: AlignedArms;
  rows: Map<string, ArmRow[]>;
  /** Per arm with replicates, each replicate's scored rows (replicate 0 first); `rows` holds their mean. */
  replicateRows: Map<string, ArmRow[][]>;
  scopes: Scope[];
  /** The primary profile (the one `rows` were scored under) first, then the secondary ones. */
  profiles: NormalizationProfile[];
  /** Every line list's counts under `profiles`, in that order. */
  scores: ProfileScores;
  /** The memorisation probe's per-line scores (analysis/probe/line-scores.ts); null or absent when no probe ran. */
  probe?: ProbeLineScores | null;
}

const NO_CONTEXT: LineContext = { top_score: null, gold_in_context: null, hit_provenance: null };

const errorText = (e: unknown): string | null =>
  e === null || e === undefined || e === ''
    ? null
    : typeof e === 'string'
      ? e
      : String((e as { reason?: unknown }).reason ?? JSON.stringify(e));

/** An arm whose prompt shows retrieved sentences (a zero-shot arm reads the shared export but ignores its context). */
const showsContext = (a: LoadedArm) => a.info.prompt === 'rag' && a.info.retrieval?.mode !== 'none';

/** Every row: arms in the analysis's order, each over the study's lines in line order; made as they are read. */
export async function tidyRows(input: TidyInput): Promise<Iterable<TidyRow>> {
  const contextCache = new Map<string, Map<string, LineContext>>();
  const contexts: Array<Map<string, LineContext> | null> = [];
  for (const arm of input.arms) contexts.push(showsContext(arm) ? await lineContexts(arm.dir, contextCache) : null);
  return rowsOf(input, contexts);
}

function* rowsOf(input: TidyInput, contexts: Array<Map<string, LineContext> | null>): Generator<TidyRow> {
  const { aligned } = input;
  const cluster = clusterOfLine(input.scopes, aligned);
  const countKeys = input.profiles.map((p) => COUNT_NAMES.map((c) => `${c}_${p.name}`));
  for (const [a, arm] of input.arms.entries()) {
    const name = arm.info.name;
    const replicates = [0, ...arm.replicates.map((r) => r.replicate)];
    for (const [k, replicate] of replicates.entries()) {
      const scored = input.replicateRows.get(name)?.[k] ?? input.rows.get(name)!;
      const list = replicate === 0 ? name : replicateName(name, replicate);
      const lines = aligned.lines.get(list)!;
      const scores = input.scores.get(list)!;
      const probed = input.probe ? (input.probe.get(arm.info.model ?? '') ?? new Map<string, LineProbeScore>()) : null;
      for (let i = 0; i < lines.length; i++) {
        const row = tidyRow(countKeys, arm, replicate, lines[i], scored[i], i, cluster[i], scores, contexts[a]);
        yield probed ? withProbe(row, probed.get(lineKey(row.dataset, row.sample_id))) : row;
      }
    }
  }
}

/** The row with the probe's score of its line (null when the arm's model did not probe the line). */
function withProbe(row: TidyRow, score: LineProbeScore | undefined): TidyRow {
  return { ...row, memorisation_cer: score?.cer ?? null, memorised: score?.memorised ?? null };
}

/** One line of one replicate of an arm, with its counts under every profile. */
function tidyRow(
  countKeys: readonly string[][],
  arm: LoadedArm,
  replicate: number,
  line: ArmLine & { filled: boolean },
  row: ArmRow,
  i: number,
  cluster: number,
  scores: ProfileCounts[],
  contexts: Map<string, LineContext> | null,
): TidyRow {
  const r = line.record;
  const counts: Record<string, number> = { cer_edits: row.ce, gold_chars: row.ref_chars, wer_edits: row.we, gold_words: row.ref_words };
  for (let p = 0; p < countKeys.length; p++) {
    const [ce, chars, we, words] = countKeys[p];
    // The primary profile: the scored row's counts (the same scoring), not scored a second time.
    const s = scores[p];
    counts[ce] = p === 0 ? row.ce : s.ce[i];
    counts[chars] = p === 0 ? row.ref_chars : s.refChars[i];
    counts[we] = p === 0 ? row.we : s.we[i];
    counts[words] = p === 0 ? row.ref_words : s.refWords[i];
  }
  const ctx = contexts?.get(lineKey(r.dataset, r.sample_id)) ?? NO_CONTEXT;
  return {
    dataset: r.dataset,
    sample_id: r.sample_id,
    cluster,
    arm: arm.info.name,
    replicate,
    ocr_text: r.ocr_text,
    gold_text: r.gt_text,
    corrected_text: r.corrected_text,
    failed: !line.filled && failureKind(r) !== null,
    filled: line.filled,
    counts,
    ocr_cer_edits: row.ocr_ce,
    guard: line.guard,
    ...ctx,
    score_band: ctx.top_score === null ? null : scoreBucket(ctx.top_score),
    model: r.model,
    served_model: line.servedModel ?? null,
    prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens,
    latency_ms: r.latency_ms,
    error: line.filled ? null : errorText(r.error),
    cmer_total: row.ct,
    wmer_total: row.wt,
    ocr_cmer_total: row.ocr_ct,
  };
}

/** Each study line's cluster index within its dataset (the dataset scopes' block design). */
function clusterOfLine(scopes: Scope[], aligned: AlignedArms): Int32Array {
  const out = new Int32Array(aligned.sampleIds.length);
  for (const [ds, [from]] of aligned.ranges) {
    const scope = scopes.find((s) => s.key === ds);
    if (scope) out.set(scope.design.block, from);
  }
  return out;
}
