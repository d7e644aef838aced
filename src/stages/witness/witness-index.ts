/**
 * The witness index of a study (`retrieval.mode: witness`): which works it covers (the arm's
 * `retrieval.witness` settings), where it lives (`<results>/witness/<fingerprint>/`, the fingerprint a hash of
 * the works selection, the parameters and the metadata file), building it in the build stage when an arm needs
 * it (reused while the fingerprint matches), and the export retriever over it. Only paths cross Temporal.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { metadataPath, resolvePath } from '../../config/load';
import { WitnessSettingsSchema, type Config } from '../../config/schema';
import { type RetrievedChunk } from '../../index/retriever';
import { formatForPrompt } from '../../prompts/context';
import { sha256Text } from '../../util/hash';
import { childLogger } from '../../util/log';
import {
  buildWitnessDir,
  buildWitnessShards,
  readShardedManifest,
  readWitnessManifest,
  ShardedWitnessRetriever,
  lineKey,
  type LineInContext,
  selectWorkFiles,
  WITNESS_CONTEXT_LINES,
  WITNESS_CONTEXT_RULE,
  WitnessRetriever,
  type WitnessHit,
} from '../../witness/index';
import type { ClosableRetriever } from '../build/retriever';
import { studyLayout } from '../study/layout';
import type { WitnessIndexPlan } from '../study/types';
import { UserInputError } from '../shared/types';

const log = childLogger('witness');

export type WitnessSettings = ReturnType<typeof WitnessSettingsSchema.parse>;

export function witnessSettings(config: Config): WitnessSettings {
  return config.retrieval.witness ?? WitnessSettingsSchema.parse({});
}

/** What decides the index's contents, in a fixed key order. */
function indexSpec(config: Config) {
  const w = witnessSettings(config);
  const meta = metadataPath(config);
  const st = statSync(meta, { throwIfNoEntry: false });
  return {
    openiti_root: resolvePath(config.data.openiti_root),
    metadata: [meta, st?.size ?? null, st?.mtimeMs ?? null],
    works: w.works,
    exclude_works: w.exclude_works,
    status: w.status,
    n: w.n,
    stride: w.stride,
    v: 1,
    // Only when cut: one index keeps the fingerprint (and folder) it always had.
    ...(w.shards > 1 ? { shards: w.shards } : {}),
  };
}

export function witnessIndexFingerprint(config: Config): string {
  return sha256Text(JSON.stringify(indexSpec(config))).slice(0, 16);
}

/** `<results>/witness/<fingerprint>/`: the index a witness arm with this (effective) config reads. */
export function witnessIndexDir(config: Config): string {
  return path.join(studyLayout(config, {}).dirs.witness, witnessIndexFingerprint(config));
}

/** Build the planned index unless a complete one with its fingerprint is there; returns its directory. */
export async function ensureWitnessIndex(
  planned: Pick<WitnessIndexPlan, 'config' | 'dir' | 'fingerprint'>,
  onProgress?: (done: number, total: number, step: string) => void,
): Promise<string> {
  const { config, dir, fingerprint } = planned;
  if (readWitnessManifest(dir)?.fingerprint === fingerprint) {
    log.info({ dir }, 'witness index is up to date, reusing it');
    return dir;
  }
  const w = witnessSettings(config);
  const { files, missing } = await selectWorkFiles({
    openitiRoot: resolvePath(config.data.openiti_root),
    include: w.works.includes('*') ? [] : w.works,
    exclude: w.exclude_works,
    status: w.status,
  });
  if (files.length === 0)
    throw new UserInputError(
      `retrieval.witness: no work matches works ${JSON.stringify(w.works)} minus exclude_works ${JSON.stringify(w.exclude_works)}`,
    );
  const t0 = Date.now();
  const build = {
    files,
    dir,
    fingerprint,
    missing,
    params: { n: w.n, stride: w.stride },
    onWork: (d: number, t: number) => onProgress?.(d, t, 'witness'),
  };
  const m = w.shards > 1 ? await buildWitnessShards({ ...build, shards: w.shards }) : await buildWitnessDir(build);
  log.info(
    { dir, works: files.length, missing: missing.length, lines: m.lines, key_chars: m.key_chars, seconds: (Date.now() - t0) / 1000 },
    `witness index: ${files.length} works`,
  );
  return dir;
}

const opened = new Map<string, ClosableRetriever>();

/** The export retriever of a witness arm, opened once per process and index (like the dense one, src/stages/build/retriever.ts). */
export function witnessRetrieverFor(config: Config): ClosableRetriever {
  const key = `${witnessIndexDir(config)}:${witnessSettings(config).candidates}:${witnessSettings(config).min_score}:${config.retrieval.max_chars_per_sentence}`;
  let r = opened.get(key);
  if (!r) opened.set(key, (r = openWitnessRetriever(config)));
  return r;
}

/** The export retriever of a witness arm: its index (which the build stage made), hits as context sentences. */
export function openWitnessRetriever(config: Config): ClosableRetriever {
  const dir = witnessIndexDir(config);
  if (readWitnessManifest(dir)?.fingerprint !== witnessIndexFingerprint(config))
    throw new UserInputError(`no witness index at ${dir} for this arm's settings — run \`phase5 build\` first`);
  const w = witnessSettings(config);
  const maxChars = config.retrieval.max_chars_per_sentence;
  // A sharded index: each batch of lines searched over the shards, one in memory at a time (docs/witness-shards.md).
  const r = readShardedManifest(dir)
    ? ShardedWitnessRetriever.open(dir, { candidates: w.candidates })
    : WitnessRetriever.open(dir, { candidates: w.candidates });
  const inContext = (lines: readonly LineInContext[], k: number) =>
    r instanceof ShardedWitnessRetriever
      ? r.retrieveInContext(lines, k, w.min_score)
      : lines.map((l) => r.retrieveInContext(l, k, w.min_score));
  return {
    retrieveMany: async (queries, k) => r.retrieveMany(queries, k, w.min_score).map((hits) => hits.map(witnessChunk)),
    retrieveInContext: async (lines, k) => inContext(lines, k).map((hits) => hits.map(witnessChunk)),
    formatForPrompt: (chunks, style) => formatForPrompt(chunks, style, maxChars),
    fingerprint: `witness:${witnessIndexFingerprint(config)}:context${WITNESS_CONTEXT_LINES}:${WITNESS_CONTEXT_RULE}`,
    close: async () => r.close(),
  };
}

/** A witness hit as a context sentence; its position (line span, page, milestone) goes to retrieval_sources. */
function witnessChunk(
  h: WitnessHit,
): RetrievedChunk & { line: number; witness: { line_end: number; page: string | null; ms: string | null } } {
  return {
    text: h.text,
    source_uri: h.source_uri,
    score: h.score,
    rank: h.rank,
    idx: h.idx,
    date: h.date,
    line: h.line,
    witness: { line_end: h.line_end, page: h.page, ms: h.ms },
  };
}

/** The export retriever of a sharded witness export whose hits the rounds made: each line's hits looked up. */
export function scatteredWitnessRetriever(config: Config, hits: ReadonlyMap<string, WitnessHit[]>): ClosableRetriever {
  const maxChars = config.retrieval.max_chars_per_sentence;
  const find = (l: LineInContext) => {
    const h = hits.get(lineKey(l));
    if (!h) throw new Error(`witness rounds have no hits for the OCR line "${l.text.slice(0, 40)}" — rerun \`phase5 export\``);
    return h.map(witnessChunk);
  };
  return {
    retrieveMany: async (queries) => queries.map((text) => find({ text, before: [], after: [] })),
    retrieveInContext: async (lines) => lines.map(find),
    formatForPrompt: (chunks, style) => formatForPrompt(chunks, style, maxChars),
    fingerprint: `witness:${witnessIndexFingerprint(config)}:context${WITNESS_CONTEXT_LINES}:${WITNESS_CONTEXT_RULE}`,
    close: async () => {},
  };
}
