/**
 * Build `corpus.jsonl` from an OpenITI checkout (docs/corpus.md, docs/openiti.md): metadata → status/exclude/era filters →
 * two streaming passes over the text files → date-stratified, author-balanced sample → JSONL written
 * to a temp file and renamed into place.
 *
 * Memory stays flat whatever the corpus size: pass 1 keeps one count per file (plus a set of 53-bit
 * hashes for the file being read, for within-file dedup); pass 2 keeps only the sentences chosen from
 * the current file and, with cross-corpus dedup, one digest per written sentence.
 */
import { sha256File } from '../util/hash';
import { childLogger } from '../util/log';
import { CorpusBuildError, filterOptions, resolveOptions, type CorpusBuildOptions, type ResolvedOptions } from './build-options';
import { FILE_SKIP_REASONS, type CorpusBuildSummary, type EraSummary } from './build-summary';
import { countPass, type CountResult } from './count-pass';
import { eraCapacities, planEras, warnEraShortfall, type EraPlan } from './era-plan';
import { FileProblems, reportMetadataProblems, selectFiles, type FileSelection } from './file-selection';
import { readMetadata, type MetadataResult } from './metadata';
import { emptySentenceCounts, type PassContext, type ProgressCallback } from './pass-context';
import { allocateEras, type EraAllocation } from './sampling';
import { writeCorpus, type WriteResult } from './select-pass';

/**
 * Build the corpus and return a small, JSON-serialisable summary. `onProgress(done, total, stage)`
 * reports bytes read in each pass (stage "count", then "select"), for heartbeats.
 */
export async function buildCorpus(options: CorpusBuildOptions, onProgress?: ProgressCallback): Promise<CorpusBuildSummary> {
  const t0 = Date.now();
  const log = childLogger('openiti');
  const o = resolveOptions(options);
  const meta = await readMetadata(o.metadataPath);
  const metadataExamples = reportMetadataProblems(meta.problems, log);
  const problems = new FileProblems(log);
  const selection = selectFiles(meta.rows, o, problems);
  const ctx: PassContext = { o, filter: filterOptions(o), sentences: emptySentenceCounts(), problems, onProgress };
  const counted = await countPass(selection.entries, ctx);
  const countMs = Date.now() - t0;

  const eraCaps = eraCapacities(o.eras, counted.parsedEntries);
  if (eraCaps.reduce((a, b) => a + b, 0) === 0) throw noSentencesError(meta.rows.length, counted.parsed, selection, ctx);
  const eraAlloc = allocateEras(
    o.maxSentences,
    o.eras.map((e) => e.fraction),
    eraCaps,
  );
  warnEraShortfall(log, o.eras, eraAlloc, eraCaps);
  const plans = planEras(o, counted.parsedEntries, eraAlloc.allocated);

  const t1 = Date.now();
  const written = await writeCorpus(plans, ctx);
  const corpusSha256 = await sha256File(o.outPath);
  const durationMs = { count: countMs, select: Date.now() - t1, total: Date.now() - t0 };
  const summary = assembleSummary({
    o,
    meta,
    metadataExamples,
    selection,
    counted,
    ctx,
    plans,
    eraCaps,
    eraAlloc,
    written,
    corpusSha256,
    durationMs,
  });
  log.info(
    {
      out: o.outPath,
      written: written.written,
      sha256: corpusSha256,
      eras: summary.eras.map((e) => ({ era: e.name, target: e.target, written: e.written })),
      skipped: problems.skipped,
    },
    `openiti: wrote ${written.written} sentences`,
  );
  return summary;
}

/** The error for a build where nothing passed: every count that could explain why. */
function noSentencesError(metadataRows: number, parsed: number, sel: FileSelection, ctx: PassContext): CorpusBuildError {
  const { o, sentences } = ctx;
  const skipped = ctx.problems.skipped;
  return new CorpusBuildError(
    `no sentences left after filters: ${metadataRows} metadata rows, ${parsed} files parsed ` +
      `(status filter "${o.statusFilter}": ${sel.statusFiltered} rows filtered; excluded ${sel.excluded}; outside eras ${sel.outsideEras}; ` +
      `skipped ${FILE_SKIP_REASONS.map((r) => `${r} ${skipped[r]}`).join(', ')}); ` +
      `lines: ${sentences.contentLines} content, ${sentences.notArabic} not Arabic, ${sentences.tooShort} shorter than ${o.minCharLen}, ${sentences.tooLong} longer than ${o.maxCharLen}. ` +
      `Check openitiRoot, statusFilter, eras, exclude and minCharLen/maxCharLen.`,
  );
}

interface BuildFacts {
  o: ResolvedOptions;
  meta: MetadataResult;
  metadataExamples: string[];
  selection: FileSelection;
  counted: CountResult;
  ctx: PassContext;
  plans: EraPlan[];
  eraCaps: number[];
  eraAlloc: EraAllocation;
  written: WriteResult;
  corpusSha256: string;
  durationMs: CorpusBuildSummary['durationMs'];
}

function assembleSummary(b: BuildFacts): CorpusBuildSummary {
  const { o, meta } = b;
  return {
    outPath: o.outPath,
    corpusSha256: b.corpusSha256,
    totalWritten: b.written.written,
    maxSentences: o.maxSentences,
    shortfall: o.maxSentences - b.written.written,
    options: optionsSummary(o),
    metadata: {
      rows: meta.rows.length,
      badRows: meta.problems.filter((p) => p.reason === 'bad_row').length,
      duplicateRows: meta.problems.filter((p) => p.reason === 'duplicate_uri').length,
      examples: b.metadataExamples,
    },
    files: {
      considered: meta.rows.length,
      statusFiltered: b.selection.statusFiltered,
      excluded: b.selection.excluded,
      outsideEras: b.selection.outsideEras,
      skipped: b.ctx.problems.skipped,
      parsed: b.counted.parsed,
      withSentences: b.counted.parsedEntries.filter((e) => e.eligible > 0).length,
      contributing: b.written.contributing,
      examples: b.ctx.problems.examples,
    },
    sentences: b.ctx.sentences,
    eras: eraSummaries(b.plans, b.eraCaps, b.eraAlloc),
    bytesParsed: b.counted.bytesParsed,
    durationMs: b.durationMs,
  };
}

function optionsSummary(o: ResolvedOptions): CorpusBuildSummary['options'] {
  return {
    openitiRoot: o.root,
    metadataPath: o.metadataPath,
    minCharLen: o.minCharLen,
    maxCharLen: o.maxCharLen,
    statusFilter: o.statusFilter,
    seed: o.seed,
    maxPerFile: o.maxPerFile,
    exclude: [...o.exclude],
    dedupAcrossCorpus: o.dedupAcrossCorpus,
    minArabicLetters: o.minArabicLetters,
    maxForeignLetterRatio: o.maxForeignLetterRatio,
    eras: o.eras.map((e) => ({ ...e })),
  };
}

function eraSummaries(plans: readonly EraPlan[], eraCaps: readonly number[], eraAlloc: EraAllocation): EraSummary[] {
  return plans.map((es, i) => ({
    name: es.era.name,
    from: es.era.from,
    to: es.era.to,
    fraction: es.era.fraction,
    files: es.files.length,
    authors: es.authors,
    capacity: eraCaps[i],
    target: eraAlloc.targets[i],
    shortfall: eraAlloc.shortfall[i],
    received: eraAlloc.received[i],
    allocated: eraAlloc.allocated[i],
    written: es.written,
  }));
}
