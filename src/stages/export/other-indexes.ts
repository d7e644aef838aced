/**
 * When the index a run asks for is missing: the indexes built beside it with other settings. A corpus folder's
 * name is the hash of its corpus settings (src/config/corpus-fingerprint.ts), so a build with `--max-sentences
 * 500` writes another folder than a run with the config's 4,000 reads; the settings each build used are recorded
 * in `corpus.jsonl.build.json` beside its corpus (./build.ts), and each index's in its manifest. This module
 * compares those records with the run's and names what differs and the flag or config key that selects it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/schema';
import { indexFiles, type IndexManifest } from '../../index/manifest';
import { corpusSettings } from '../build/corpus-settings';
import { indexSettingDifferences, type SettingDifference } from './index-settings-diff';

/** A recorded corpus setting → the config key (and the command-line flag) that sets it. */
const CORPUS_KEYS: Record<string, { key: string; flag?: string }> = {
  maxSentences: { key: 'corpus.max_sentences', flag: '--max-sentences' },
  openitiRoot: { key: 'data.openiti_root', flag: '--openiti-root' },
  metadataPath: { key: 'data.openiti_metadata' },
  minCharLen: { key: 'corpus.min_char_len' },
  maxCharLen: { key: 'corpus.max_char_len' },
  statusFilter: { key: 'corpus.status_filter' },
  seed: { key: 'corpus.seed' },
  eras: { key: 'corpus.eras' },
  maxPerFile: { key: 'corpus.max_per_file' },
  exclude: { key: 'corpus.exclude' },
  dedupAcrossCorpus: { key: 'corpus.dedup_across_corpus' },
  addWorks: { key: 'corpus.add_works' },
  datasetSources: { key: 'corpus.exclude_dataset_sources' },
  generic: { key: 'corpus.source' },
  chunk: { key: 'corpus.source.chunk_size / chunk_overlap' },
  inputs: { key: 'the files of corpus.source' },
};

export interface OtherIndex {
  index: string;
  differences: SettingDifference[];
}

export function formatValue(v: unknown): string {
  if (typeof v === 'number') return v.toLocaleString('en-US');
  if (v === undefined) return '(unset)';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

function corpusDifferences(recordFile: string, config: Config): SettingDifference[] {
  let theirs: Record<string, unknown>;
  try {
    theirs = (JSON.parse(readFileSync(recordFile, 'utf8')) as { settings: Record<string, unknown> }).settings ?? {};
  } catch {
    return [{ key: 'corpus settings', theirs: `unreadable (${path.basename(recordFile)})`, ours: 'this run' }];
  }
  const ours = corpusSettings(config) as unknown as Record<string, unknown>;
  return [...new Set([...Object.keys(theirs), ...Object.keys(ours)])]
    .filter((k) => JSON.stringify(theirs[k]) !== JSON.stringify(ours[k]))
    .map((k) => ({ key: CORPUS_KEYS[k]?.key ?? k, theirs: theirs[k], ours: ours[k], flag: CORPUS_KEYS[k]?.flag }));
}

function readManifestOrNull(file: string): IndexManifest | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as IndexManifest;
  } catch {
    return null;
  }
}

/** The indexes (with a manifest) in the sibling folders of `wanted`'s folder, fewest differences first. */
export function otherIndexes(wanted: string, config: Config): OtherIndex[] {
  const parent = path.dirname(path.dirname(wanted));
  if (!existsSync(parent)) return [];
  const found: OtherIndex[] = [];
  for (const folder of readdirSync(parent, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const dir = path.join(parent, folder.name);
    const record = path.join(dir, 'corpus.jsonl.build.json');
    for (const name of readdirSync(dir).filter((n) => /^index-.*\.usearch$/.test(n))) {
      const index = path.join(dir, name);
      if (index === wanted || !existsSync(indexFiles(index).manifest)) continue;
      const corpus = existsSync(record) ? corpusDifferences(record, config) : [];
      const manifest = readManifestOrNull(indexFiles(index).manifest);
      const ofIndex = manifest
        ? indexSettingDifferences(manifest, config)
        : [{ key: 'index manifest', theirs: 'unreadable', ours: 'this run' }];
      found.push({ index, differences: [...corpus, ...ofIndex] });
    }
  }
  return found.sort((a, b) => a.differences.length - b.differences.length || a.index.localeCompare(b.index));
}

/** `; …/index-ab.usearch exists, built with corpus.max_sentences 500 vs 4,000 here — select it with --max-sentences 500` */
export function describeOtherIndexes(wanted: string, config: Config, max = 3): string {
  const others = otherIndexes(wanted, config).slice(0, max);
  return others
    .map((o) => {
      const diff = o.differences.length
        ? o.differences.map((d) => `${d.key} ${formatValue(d.theirs)} vs ${formatValue(d.ours)} here`).join(', ')
        : 'settings this run cannot tell apart';
      const flags = o.differences.filter((d) => d.flag).map((d) => `${d.flag} ${String(d.theirs)}`);
      const keys = o.differences.filter((d) => !d.flag).map((d) => d.key);
      const select = [...flags, ...(keys.length ? [`${keys.join(', ')} in the config`] : [])].join(' and ');
      return `; ${o.index} exists, built with ${diff}${select ? ` — select it with ${select}` : ''}`;
    })
    .join('');
}
