/**
 * src/stages/other-indexes.ts: the indexes built beside a missing one, what differs from this run's settings and
 * the flag or config key that selects each — on a results dir laid out as a build leaves it (corpus folders named
 * by src/stages/study-layout.ts, the corpus settings recorded in corpus.jsonl.build.json, the index manifest).
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import type { Config } from '../../../src/config/schema';
import { indexFiles } from '../../../src/index/manifest';
import { corpusSettings } from '../../../src/stages/build/corpus-settings';
import { describeOtherIndexes, otherIndexes } from '../../../src/stages/export/other-indexes';
import { stagePaths } from '../../../src/stages/study/layout';

const configOf = (results: string, extra: Record<string, unknown> = {}): Config =>
  parseConfig({ paths: { results_dir: results }, corpus: { max_sentences: 4000 }, ...extra }, 'other-indexes test', { env: {} });

/** What a build of `config` leaves: the corpus record and an index file with its manifest (the manifest's fields the diff reads). */
function leaveBuild(config: Config, manifest: { storage?: string; connectivity?: number; pooling?: string } = {}): string {
  const { corpus, index } = stagePaths(config, {});
  mkdirSync(path.dirname(corpus), { recursive: true });
  writeFileSync(`${corpus}.build.json`, JSON.stringify({ settings: corpusSettings(config), summary: {} }));
  writeFileSync(index, '');
  const e = config.rag.embedding;
  const hnsw = config.index.type !== 'FlatIP';
  writeFileSync(
    indexFiles(index).manifest,
    JSON.stringify({
      model: {
        id: config.rag.embedding_model,
        passage_prefix: e.passage_prefix,
        pooling: manifest.pooling ?? e.pooling,
        normalize: e.normalize,
        max_length: e.max_length,
      },
      index: {
        type: hnsw ? 'hnsw' : 'exact',
        storage: manifest.storage ?? config.index.dtype,
        connectivity: hnsw ? (manifest.connectivity ?? config.index.connectivity) : null,
        expansion_add: hnsw ? config.index.expansion_add : null,
      },
    }),
  );
  return index;
}

describe('stages/other-indexes: the indexes of other settings beside a missing one', () => {
  it('names the index of another corpus size, the difference and the flag', () => {
    const results = mkdtempSync(path.join(os.tmpdir(), 'other-indexes-'));
    const built = leaveBuild(configOf(results, { corpus: { max_sentences: 500 } }));
    const run = configOf(results);
    const wanted = stagePaths(run, {}).index;
    expect(path.dirname(path.dirname(wanted)), 'a sibling folder').to.equal(path.dirname(path.dirname(built)));
    expect(otherIndexes(wanted, run)).to.deep.equal([
      { index: built, differences: [{ key: 'corpus.max_sentences', theirs: 500, ours: 4000, flag: '--max-sentences' }] },
    ]);
    expect(describeOtherIndexes(wanted, run)).to.equal(
      `; ${built} exists, built with corpus.max_sentences 500 vs 4,000 here — select it with --max-sentences 500`,
    );
  });

  it('names index settings from the manifest, without a flag: the config key; the closest build first', () => {
    const results = mkdtempSync(path.join(os.tmpdir(), 'other-indexes-'));
    const hnsw = { index: { type: 'HNSW', connectivity: 32 } };
    const near = leaveBuild(configOf(results, hnsw));
    const far = leaveBuild(configOf(results, { ...hnsw, corpus: { max_sentences: 10, seed: 7 } }));
    const run = configOf(results, { index: { type: 'HNSW' } });
    const found = otherIndexes(stagePaths(run, {}).index, run);
    expect(found.map((o) => o.index)).to.deep.equal([near, far]);
    expect(found[0].differences).to.deep.equal([{ key: 'index.connectivity', theirs: 32, ours: 16 }]);
    expect(describeOtherIndexes(stagePaths(run, {}).index, run, 1)).to.equal(
      `; ${near} exists, built with index.connectivity 32 vs 16 here — select it with index.connectivity in the config`,
    );
  });

  it('says nothing when no other index exists (a corpus folder without an index is not one)', () => {
    const results = mkdtempSync(path.join(os.tmpdir(), 'other-indexes-'));
    const run = configOf(results);
    expect(describeOtherIndexes(stagePaths(run, {}).index, run)).to.equal('');
    const corpusOnly = configOf(results, { corpus: { max_sentences: 500 } });
    mkdirSync(path.dirname(stagePaths(corpusOnly, {}).corpus), { recursive: true });
    expect(describeOtherIndexes(stagePaths(run, {}).index, run)).to.equal('');
  });
});
