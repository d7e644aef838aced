/**
 * A sharded witness export as activities (docs/witness-shards.md#scatter-and-gather): before the export shards run,
 * the witness hits of every line of the export are made in rounds — a gather (`witnessGather`) evaluates every line
 * with the answers so far and writes the requests of the lines still waiting; each index shard (`witnessShardRound`,
 * one activity per shard on the CPU queue, so a shard is in one worker's memory at a time) answers them; when no line
 * waits, each shard makes the hits of the spans in its works. The export shards then read those hits.
 *
 *   <results>/exports/<group>/witness-rounds/<fingerprint>/requests-R.json, answers-R-S.json, placed.json, hits-S.json
 *
 * The fingerprint is the export's (settings, index, datasets, --limit): rounds of other settings are never read.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeJsonAtomic } from '../../io/jsonl';
import {
  absorb,
  answerRequests,
  evaluateLines,
  loadWitnessDir,
  noAnswers,
  readCounts,
  readShardedManifest,
  shardHits,
  lineKey,
  type Answers,
  type LineInContext,
  type Requests,
  type WitnessSpan,
} from '../../witness/index';
import type { ExportOptions, ExportPlan } from '../export/export';
import { datasetLines } from './dataset-lines';
import { witnessIndexDir, witnessSettings } from './witness-index';
import type { WitnessScatter } from './scattered-hits';
export type { WitnessScatter } from './scattered-hits';

export type Round = number | 'hits';

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Every line of the group's export, with its neighbours, in plan order (deduplicated by content). */
async function exportLines(options: ExportOptions, plan: ExportPlan, group: string): Promise<LineInContext[]> {
  const seen = new Map<string, LineInContext>();
  for (const d of plan.datasets.filter((x) => x.group === group))
    for (const l of await datasetLines(options, d.dataset)) seen.set(lineKey(l), l);
  return [...seen.values()];
}

/** The answers of every round so far (a fit no shard holds is null). */
function answersIn(dir: string, shards: number): { answers: Answers; rounds: number } {
  const answers = noAnswers();
  let r = 0;
  for (; existsSync(path.join(dir, `requests-${r}.json`)); r++) {
    const files = Array.from({ length: shards }, (_, s) => path.join(dir, `answers-${r}-${s}.json`));
    if (!files.every((f) => existsSync(f))) break; // this round is not answered yet: ask it again
    const requests = readJson<Requests>(path.join(dir, `requests-${r}.json`));
    for (const id of requests.searches) answers.searched[id] ??= [];
    for (const f of files) absorb(answers, readJson<Answers>(f));
    for (const f of requests.fits) if (!(f.id in answers.fits)) answers.fits[f.id] = null;
  }
  return { answers, rounds: r };
}

/** The gather: the next round to answer, or 'hits' once every line is placed (placed.json written). */
export async function witnessGather(options: ExportOptions, plan: ExportPlan, w: WitnessScatter): Promise<Round> {
  if (existsSync(path.join(w.dir, 'placed.json'))) return 'hits';
  const lines = await exportLines(options, plan, w.group);
  const settings = witnessSettings(options.config);
  const { answers, rounds } = answersIn(w.dir, w.shards);
  // As the witness export retriever searches: top_k hits, the witness block's min_score (src/stages/witness/witness-index.ts).
  const { placed, requests } = evaluateLines(
    lines,
    options.config.retrieval.top_k,
    { candidates: settings.candidates, minScore: settings.min_score },
    answers,
  );
  if (requests.searches.length === 0 && requests.fits.length === 0) {
    writeJsonAtomic(path.join(w.dir, 'placed.json'), { lines: lines.map(lineKey), placed });
    return 'hits';
  }
  writeJsonAtomic(path.join(w.dir, `requests-${rounds}.json`), requests);
  return rounds;
}

/** One index shard's part of a round: answers to the round's requests, or the hits of the spans in its works. */
export function witnessShardRound(options: ExportOptions, w: WitnessScatter, round: Round, shard: number): void {
  const index = witnessIndexDir(options.config);
  const manifest = readShardedManifest(index);
  if (!manifest) throw new Error(`witness index ${index} is not sharded — run \`phase5 build\``);
  const out = path.join(w.dir, round === 'hits' ? `hits-${shard}.json` : `answers-${round}-${shard}.json`);
  if (existsSync(out)) return; // answered by an earlier attempt
  const frame = manifest.shards[shard];
  const { data, texts } = loadWitnessDir(path.join(index, frame.dir));
  try {
    const loaded = { data, texts, frame };
    if (round === 'hits') {
      const { placed } = readJson<{ placed: WitnessSpan[][] }>(path.join(w.dir, 'placed.json'));
      writeJsonAtomic(out, shardHits(loaded, placed));
    } else {
      const requests = readJson<Requests>(path.join(w.dir, `requests-${round}.json`));
      writeJsonAtomic(out, answerRequests(loaded, requests, readCounts(index), { candidates: witnessSettings(options.config).candidates }));
    }
  } finally {
    texts.close();
  }
}

/** Whether rounds exist in `dir` (for tests and status). */
export function roundFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}
