import type { Command } from 'commander';
import { resolveConfig, runOptions, type GlobalFlags, type StageFlags } from '../options';
import { addRenamedFlags } from '../renamed-flags';
import type { Config } from '../../../src/config/schema';
import type { RetrievedChunk } from '../../../src/index/retriever';
import type { FormatStyle } from '../../../src/prompts/context';
import type { StagePaths } from '../../../src/stages/build/retriever';
import { UserFacingError } from '../../../src/temporal/server';

/** Commands that work on local files without Temporal: report, retrieve, eval-retrieval. */
export function registerLocalCommands(program: Command): void {
  registerRetrieveCommand(program);
  registerEvalRetrievalCommand(program);
  addRenamedFlags(program.command('report'))
    .description('regenerate metrics, comparisons and report.md/html from existing results (no Temporal, no inference)')
    .option('--datasets <keys...>', 'subset of dataset keys')
    .option('--baseline-dir <dir>', 'zero-shot baseline results directory')
    .option('--no-error-analysis', 'skip error_changes.json')
    .action(async (_opts, cmd: Command) => {
      const flags = cmd.optsWithGlobals<GlobalFlags & StageFlags>();
      const { config } = resolveConfig(flags, flags);
      const options = runOptions(flags, config);
      const analyze = await import('../../../analysis/stage');
      const { optionsFrom } = await import('../../../analysis/stage/options');
      const { existsSync } = await import('node:fs');
      const opts = await optionsFrom(config, options);
      // With study arms, the analysis runs on the arms even where the rag arm has no corrections of its own.
      if (!existsSync(`${opts.ragDir}/corrections.jsonl`) && !opts.arms) {
        const { UserFacingError } = await import('../../../src/temporal/server');
        throw new UserFacingError(`no corrections in ${opts.ragDir} — run \`phase5 infer\` first (or \`phase5 infer --import FILE\`)`);
      }
      const t = Date.now();
      const result = await analyze.run(opts, {}, 'silent');
      if (flags.json) return void console.log(JSON.stringify(result, null, 2));
      for (const d of result.datasets) {
        // A comparison with too many failed lines gets its reason instead of a ΔCER.
        const delta = d.invalid_reason ? `ΔCER not valid: ${d.invalid_reason}` : `ΔCER ${fmt(d.delta_cer)}`;
        console.log(
          `${d.dataset.padEnd(34)} n=${String(d.n).padStart(5)}  OCR CER ${fmt(d.ocr_cer)}  zero-shot ${fmt(d.zero_shot_cer)}  RAG ${fmt(d.rag_cer)}  ${delta}`,
        );
      }
      if (result.arms) {
        const { armsTableLines } = await import('../summary');
        for (const line of armsTableLines(result.arms)) console.log(line);
      }
      for (const w of result.warnings) console.error(`warning: ${w}`);
      // Arms-only results are written under study/, beside the report; otherwise in the rag arm's folder.
      const written = result.datasets.length ? result.ragDir : (await import('node:path')).dirname(result.report);
      console.log(`${result.files} files written in ${written} (${((Date.now() - t) / 1000).toFixed(1)} s); report: ${result.report}`);
    });
}

type RetrieveOpts = { k?: string; topK?: string; minScore?: string; json?: boolean; context?: boolean; denseOnly?: boolean };

/**
 * `phase5 retrieve TEXT`: the retrieval export does for an OCR line — the same pipeline (`openExportRetriever`:
 * rerank, hybrid, MMR, window… as configured), the same top_k/min_score (config, or --top-k/--min-score), the
 * same Arabic-text check. `--context` prints the formatted context exactly as export writes it into the prompt;
 * `--dense-only` shows the raw index hits instead (no pipeline options).
 */
export function registerRetrieveCommand(program: Command): void {
  program
    .command('retrieve')
    .description(
      'retrieve for a text as export does (same pipeline, k and min_score) — score, source_uri, text; --context for the prompt context',
    )
    .argument('<text>', 'query text (an OCR line)')
    .option('--top-k <n>', 'number of hits (default: retrieval.top_k)')
    .option('--k <n>', 'alias of --top-k')
    .option('--min-score <s>', 'minimum cosine similarity (default: retrieval.min_score)')
    .option('--corpus-path <file>', 'corpus JSONL the index was built from')
    .option('--index-path <file>', 'index file')
    .option('--context', 'print the retrieval context as export puts it in the prompt')
    .option('--dense-only', 'the raw dense index hits, without the configured pipeline (rerank, hybrid, …)')
    .action(async (text: string, opts: RetrieveOpts, cmd: Command) => {
      const flags = cmd.optsWithGlobals<GlobalFlags & StageFlags>();
      const { config } = resolveConfig(flags, { ...flags, topK: opts.topK ?? opts.k, minScore: opts.minScore });
      const { stagePaths } = await import('../../../src/stages/build/build');
      const paths = stagePaths(config, runOptions(flags, config));
      const { top_k: k, min_score: minScore, format_style: style } = config.retrieval;
      const { isMostlyArabic } = await import('../../../src/text/arabic');
      const empty: HitsOut = { hits: [], ...(opts.context ? { context: '' } : {}) }; // export's record for such a line
      const out =
        !text.trim() || !isMostlyArabic(text)
          ? empty
          : opts.denseOnly
            ? await denseHits(config, paths, text, k, minScore)
            : await pipelineHits(config, paths, text, k, minScore, opts.context ? style : null);
      printHits(out, { ...opts, json: flags.json }); // --json is a global flag
    });
}

type HitsOut = { hits: RetrievedChunk[]; context?: string };

async function denseHits(config: Config, paths: StagePaths, text: string, k: number, minScore: number): Promise<HitsOut> {
  const { retrieverConfig } = await import('../../../src/stages/build/retriever');
  const { RAGRetriever } = await import('../../../src/index/retriever');
  const retriever = await RAGRetriever.open(retrieverConfig(config, paths)).catch((err: Error) => {
    throw new UserFacingError(err.message);
  });
  try {
    if (!retriever.enabled) throw new UserFacingError(retriever.disabledReason ?? 'retrieval is disabled');
    return { hits: await retriever.retrieve(text, k, minScore) };
  } finally {
    await retriever.close();
  }
}

async function pipelineHits(
  config: Config,
  paths: StagePaths,
  text: string,
  k: number,
  minScore: number,
  style: FormatStyle | null,
): Promise<HitsOut> {
  const { openExportRetriever } = await import('../../../src/stages/build/retriever');
  const retriever = await openExportRetriever(config, paths).catch((err: Error) => {
    throw new UserFacingError(err.message);
  });
  try {
    const [hits] = await retriever.retrieveMany([text], k, minScore);
    return { hits: hits ?? [], ...(style ? { context: retriever.formatForPrompt(hits ?? [], style) } : {}) };
  } finally {
    await retriever.close();
  }
}

function printHits(out: HitsOut, opts: RetrieveOpts): void {
  const { hits, context } = out;
  if (opts.json) console.log(JSON.stringify(context === undefined ? hits : { hits, context }, null, 2));
  else if (context !== undefined) console.log(context);
  else if (hits.length === 0) console.log('(no hits: the text is empty, not Arabic, or every score is below --min-score)');
  else hits.forEach((h, i) => console.log(`${i + 1}. ${h.score.toFixed(4)}  ${h.source_uri}  ${h.text}`));
}

export function registerEvalRetrievalCommand(program: Command): void {
  program
    .command('eval-retrieval')
    .description(
      'retrieval quality on the real golden set (OCR_GS lines located in their OpenITI sources): recall@k, MRR, precision@k per configuration',
    )
    .option('--out <dir>', 'output folder (default <results>/eval-retrieval)')
    .option('--ocr-gs-root <dir>', 'OCR_GS folder with book_* subfolders', '../shared/data/ocr-gs')
    .option('--openiti-root <dir>', 'OpenITI root (default: data.openiti_root)')
    .option('--models <list>', 'embedding models to compare: e5-small, minilm-l6', 'e5-small,minilm-l6')
    .option('--max-queries <n>', 'evaluate only the first N evaluable lines')
    .action(async (opts: { out?: string; ocrGsRoot: string; models: string; maxQueries?: string }, cmd: Command) => {
      const flags = cmd.optsWithGlobals<GlobalFlags>();
      const { config } = resolveConfig(flags);
      const path = (await import('node:path')).default;
      const { existsSync } = await import('node:fs');
      const { resolvePath, resultDirs, PROJECT_ROOT } = await import('../../../src/config/load');
      const { defaultEvalConfigs, defaultEvalModels, describeEvalSummary, evalRetrieval } =
        await import('../../../src/eval/eval-retrieval');
      const { UserFacingError } = await import('../../../src/temporal/server');
      const { UsageError } = await import('../options');
      const openitiRoot = resolvePath(config.data.openiti_root);
      const ocrGsRoot = resolvePath(opts.ocrGsRoot);
      for (const [what, dir] of [
        ['OpenITI root', openitiRoot],
        ['OCR_GS folder', ocrGsRoot],
      ] as const) {
        if (!existsSync(dir)) throw new UserFacingError(`${what} not found: ${dir}`);
      }
      const wanted = opts.models.split(',').map((m) => m.trim());
      const models = defaultEvalModels(PROJECT_ROOT).filter((m) => wanted.includes(m.name));
      if (models.length !== wanted.length)
        throw new UsageError(
          `--models: choose from ${defaultEvalModels(PROJECT_ROOT)
            .map((m) => m.name)
            .join(', ')}`,
        );
      const maxQueries = opts.maxQueries === undefined ? undefined : Number(opts.maxQueries);
      if (maxQueries !== undefined && !(Number.isInteger(maxQueries) && maxQueries > 0))
        throw new UsageError(`--max-queries must be a positive integer, got "${opts.maxQueries}"`);
      const summary = await evalRetrieval({
        openitiRoot,
        ocrGsRoot,
        outDir: opts.out ? resolvePath(opts.out) : path.join(resultDirs(config).root, 'eval-retrieval'),
        models,
        configs: defaultEvalConfigs(models),
        maxQueries,
      });
      console.log(describeEvalSummary(summary));
    });
}

function fmt(x: number | null): string {
  return x === null ? '   -  ' : x.toFixed(4);
}
