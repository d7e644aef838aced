/**
 * The arms analysis the design files are a projection of, when the stage's own (analysis/stage.ts) does not cover
 * their lines — a library call, rag without a zero_shot arm, a baseline elsewhere, arms with different lines: the
 * two default arms as the design files read them, analysed in memory by `analyzeArms` (nothing written). `pair`:
 * rag and zero_shot over the lines both hold (every comparison); `ragAlone`: rag over all its lines (metrics.json's
 * counts, and the figures against the OCR text of a dataset without zero_shot lines), only when some rag line has
 * no zero_shot line. So the design files count no line and measure no interval or test of their own.
 */
import { analyzeArms } from '../study/arms';
import type { ArmsAnalysis, ArmsLineCounts } from '../study/types';
import type { ArmLine, LoadedArm } from '../inputs/arm-types';
import { defaultArmInfo } from '../inputs/default-arms';
import type { DesignInputs } from '../inputs/design-inputs';
import { lineKey, type LoadedFile } from '../inputs/records';
import type { CorrectionRecord } from '../../src/llm/records';
import type { AnalyzeOptions } from '../types';
import type { ArmPairCounts } from './pair-counts';

/** The analyses the design files project, and the line counts they take. */
export interface DesignArms {
  /** rag vs zero_shot on the lines both hold; null without any. */
  pair: ArmsAnalysis | null;
  /** rag alone on all its lines; null when every rag line has a zero_shot line (then `pair` covers them). */
  ragAlone: ArmsAnalysis | null;
  counts: ArmPairCounts;
}

type Settings = Pick<AnalyzeOptions, 'bootstrap' | 'normalization' | 'maxFailedShare'> & { collapseWhitespace: boolean };

/** An arm of the default pair from its loaded corrections: the lines `keep` accepts, in file order. */
function loadedArm(name: 'rag' | 'zero_shot', file: LoadedFile<CorrectionRecord>, keep: (ds: string, id: string) => boolean): LoadedArm {
  const byDataset = new Map<string, ArmLine[]>();
  for (const [ds, lines] of file.byDataset) {
    const kept = lines.filter((l) => keep(ds, l.record.sample_id)).map(({ record }): ArmLine => ({ record, rawText: null, guard: null }));
    if (kept.length) byDataset.set(ds, kept);
  }
  const info = defaultArmInfo(name, file.file, { topK: null, model: null })!;
  const none = { rate: null, byDataset: null };
  return {
    info,
    dir: file.file,
    byDataset,
    duplicates: 0,
    mtimeMs: file.mtimeMs,
    verbatim: none,
    replicates: [],
    extraReplicates: [],
    seed: null,
  };
}

async function inMemory(
  arms: LoadedArm[],
  baseline: string,
  dir: string,
  s: Settings,
  ragTopScores: ReadonlyMap<string, number> | null,
): Promise<{ a: ArmsAnalysis; counts: ArmsLineCounts }> {
  let counts: ArmsLineCounts | null = null;
  const a = await analyzeArms({
    resultsDir: dir,
    baseline,
    loaded: { arms, skipped: [] },
    defaultArms: { topK: null, model: null },
    ragTopScores,
    write: false,
    bootstrap: s.bootstrap,
    ...(s.bootstrap?.permutations !== undefined ? { permutations: s.bootstrap.permutations } : {}),
    ...(s.bootstrap?.minClusters !== undefined ? { minClusters: s.bootstrap.minClusters } : {}),
    ...(s.bootstrap?.clusters ? { clusters: s.bootstrap.clusters } : {}),
    collapseWhitespace: s.collapseWhitespace,
    normalization: s.normalization,
    ...(s.maxFailedShare !== undefined ? { maxFailedShare: s.maxFailedShare } : {}),
    onLineCounts: (c) => (counts = c),
  });
  return { a, counts: counts! };
}

/** The rag arm's top-1 retrieval scores by line key, from its inference_input.jsonl; null without one. */
function topScores(inputs: DesignInputs): Map<string, number> | null {
  if (!inputs.inferenceInput) return null;
  const m = new Map<string, number>();
  for (const [ds, ls] of inputs.inferenceInput.byDataset)
    for (const { record } of ls) if (record.retrieval_scores?.length) m.set(lineKey(ds, record.sample_id), record.retrieval_scores[0]);
  return m;
}

const idSets = (f: LoadedFile<CorrectionRecord>) =>
  new Map([...f.byDataset].map(([ds, ls]) => [ds, new Set(ls.map((l) => l.record.sample_id))]));

/** The in-memory analyses of the design files' two arms (`dir`: where the analysis finds nothing of its own). */
export async function ownArms(inputs: DesignInputs, dir: string, s: Settings): Promise<DesignArms> {
  const zs = inputs.zeroShot;
  const zsIds = zs ? idSets(zs) : new Map<string, Set<string>>();
  const ragIds = idSets(inputs.rag);
  const both = (ds: string, id: string) => (zsIds.get(ds)?.has(id) ?? false) && (ragIds.get(ds)?.has(id) ?? false);
  const ragLines = [...inputs.rag.byDataset].flatMap(([ds, ls]) => ls.map((l) => both(ds, l.record.sample_id)));
  const pairs = ragLines.filter(Boolean).length;
  const top = topScores(inputs);
  const pair =
    zs && pairs > 0
      ? await inMemory([loadedArm('rag', inputs.rag, both), loadedArm('zero_shot', zs, both)], 'zero_shot', dir, s, top)
      : null;
  const ragAlone =
    pair && pairs === ragLines.length ? null : await inMemory([loadedArm('rag', inputs.rag, () => true)], 'rag', dir, s, top);
  const counts = (ragAlone ?? pair)!.counts;
  return {
    pair: pair?.a ?? null,
    ragAlone: ragAlone?.a ?? null,
    counts: {
      profiles: counts.profiles,
      collapseWhitespace: counts.collapseWhitespace,
      rag: counts.of('rag')!,
      zeroShot: pair?.counts.of('zero_shot') ?? new Map(),
    },
  };
}
