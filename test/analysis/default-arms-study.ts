/**
 * A small default study for the analysis tests: the arms rag and zero_shot under `<root>/arms/` (no arm.json), as
 * `phase5 run` writes them without `study:`, analyzed by the analyze stage's `run` with enough clusters for
 * intervals.
 */
import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { run } from '../../analysis/stage';
import type { AnalyzeOptions } from '../../analysis/types';
import { writeStudy, type Pair, type Retrieval } from './helpers';

const WORDS = ['كتاب', 'الحيوان', 'قال', 'أبو', 'عثمان', 'والعرب', 'تقول', 'في', 'ذلك', 'شعرا'];

/** 40 lines of a dataset: OCR drops a space or misreads an alef on most lines. */
export function studyPairs(ds: string): Pair[] {
  return Array.from({ length: 40 }, (_, i) => {
    const gt = [0, 1, 2, 3, 4].map((k) => WORDS[(i + k * 3) % WORDS.length]).join(' ');
    const ocr = i % 5 === 0 ? gt : i % 2 ? gt.replace('ا', 'أ') : gt.replace(' ', '');
    return { id: `${ds}-${String(i).padStart(3, '0')}`, gt, ocr };
  });
}

/** Blocks of 4 lines (10 clusters a dataset), at least 5 clusters for an interval. */
export const STATS = { clusters: { blockLines: 4 }, permutations: 300, minClusters: 5 };

/** The design document's options over `<root>/arms/{rag,zero_shot}`. */
export const documentOptions = (root: string): AnalyzeOptions => ({
  ragDir: path.join(root, 'arms', 'rag'),
  baselineDir: path.join(root, 'arms', 'zero_shot'),
  bootstrap: { iterations: 300, seed: 11, ...STATS },
  report: false,
  lines: false,
  logFile: false,
  progress: 'silent',
});

/**
 * Write the default arms of `datasets` (rag fixes 2 lines in 3, zero_shot 1 in 4) and run the analyze stage;
 * `options` over documentOptions' (e.g. `report` to write the report, in `<root>/study/`).
 */
export async function runDefaultStudy(
  root: string,
  datasets: string[],
  retrieval?: (p: Pair, i: number, ds: string) => Retrieval,
  options: Partial<AnalyzeOptions> = {},
): Promise<void> {
  const written = writeStudy(path.join(root, 'written'), {
    datasets: Object.fromEntries(datasets.map((ds) => [ds, studyPairs(ds)])),
    phase5: (p, i) => ({ corrected: i % 3 ? p.gt : p.ocr }),
    phase2: (p, i) => ({ corrected: i % 4 ? p.ocr : p.gt }),
    ...(retrieval ? { retrieval } : {}),
  });
  mkdirSync(path.join(root, 'arms'));
  renameSync(written.ragDir, path.join(root, 'arms', 'rag'));
  renameSync(written.baselineDir, path.join(root, 'arms', 'zero_shot'));
  const defaultArms = { topK: 3, model: 'test/model' };
  await run(
    { ...documentOptions(root), ...options, arms: { resultsDir: root, baseline: 'zero_shot', defaultArms, ...STATS } },
    {},
    'silent',
  );
}

export const readJson = (f: string) => JSON.parse(readFileSync(f, 'utf8'));
