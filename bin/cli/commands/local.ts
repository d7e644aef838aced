import type { Command } from 'commander';
import { resolveConfig, runOptions, type GlobalFlags, type StageFlags } from '../options';

/** Commands that work on local files without Temporal: report, retrieve, eval-retrieval. */
export function registerLocalCommands(program: Command): void {
  registerRetrieveCommand(program);
  registerEvalRetrievalCommand(program);
  program
    .command('report')
    .description('regenerate metrics, comparisons and report.md/html from existing results (no Temporal, no inference)')
    .option('--datasets <keys...>', 'subset of dataset keys')
    .option('--phase2-dir <dir>', 'zero-shot baseline results directory')
    .option('--no-error-analysis', 'skip error_changes.json')
    .action(async (_opts, cmd: Command) => {
      const flags = cmd.optsWithGlobals<GlobalFlags & StageFlags>();
      const { config } = resolveConfig(flags, flags);
      const options = runOptions(flags, config);
      const analyze = await import('../../../analysis/stage');
      const { existsSync } = await import('node:fs');
      const opts = await analyze.optionsFrom(config, options);
      if (!existsSync(`${opts.phase5Dir}/corrections.jsonl`)) {
        const { UserFacingError } = await import('../../../src/temporal/server');
        throw new UserFacingError(`no corrections in ${opts.phase5Dir} — run \`phase5 infer\` first (or \`phase5 infer --import FILE\`)`);
      }
      const t = Date.now();
      const result = await analyze.run(opts, {}, 'silent');
      if (flags.json) return void console.log(JSON.stringify(result, null, 2));
      for (const d of result.datasets) {
        // A comparison with too many failed lines gets its reason instead of a ΔCER.
        const delta = d.invalid_reason ? `ΔCER not valid: ${d.invalid_reason}` : `ΔCER ${fmt(d.delta_cer)}`;
        console.log(`${d.dataset.padEnd(34)} n=${String(d.n).padStart(5)}  OCR CER ${fmt(d.ocr_cer)}  zero-shot ${fmt(d.phase2_cer)}  RAG ${fmt(d.phase5_cer)}  ${delta}`);
      }
      for (const w of result.warnings) console.error(`warning: ${w}`);
      console.log(`${result.files} files written in ${result.phase5Dir} (${((Date.now() - t) / 1000).toFixed(1)} s); report: ${result.report}`);
    });
}

export function registerRetrieveCommand(program: Command): void {
  program
    .command('retrieve')
    .description('print the corpus sentences most similar to a text (score, source_uri, text) — to inspect the index')
    .argument('<text>', 'query text (an OCR line)')
    .option('--k <n>', 'number of hits', '5')
    .option('--min-score <s>', 'minimum cosine similarity', '0')
    .option('--corpus-path <file>', 'corpus JSONL the index was built from')
    .option('--index-path <file>', 'index file')
    .action(async (text: string, opts: { k: string; minScore: string }, cmd: Command) => {
      const flags = cmd.optsWithGlobals<GlobalFlags & StageFlags>();
      const { config } = resolveConfig(flags, {});
      const k = Number(opts.k);
      const minScore = Number(opts.minScore);
      const { UsageError } = await import('../options');
      if (!Number.isInteger(k) || k < 1) throw new UsageError(`--k must be a positive integer, got "${opts.k}"`);
      if (!Number.isFinite(minScore) || minScore < 0 || minScore > 1) throw new UsageError(`--min-score must be a number in [0, 1], got "${opts.minScore}"`);
      const { stagePaths } = await import('../../../src/stages/build');
      const { retrieverConfig } = await import('../../../src/stages/retriever');
      const { RAGRetriever } = await import('../../../src/index/retriever');
      const { UserFacingError } = await import('../../../src/temporal/server');
      const paths = stagePaths(config, runOptions(flags, config));
      const retriever = await RAGRetriever.open(retrieverConfig(config, paths)).catch((err: Error) => {
        throw new UserFacingError(err.message);
      });
      try {
        if (!retriever.enabled) throw new UserFacingError(retriever.disabledReason ?? 'retrieval is disabled');
        const hits = await retriever.retrieve(text, k, minScore);
        if (flags.json) console.log(JSON.stringify(hits, null, 2));
        else if (hits.length === 0) console.log('(no hits: the text is empty, not Arabic, or every score is below --min-score)');
        else for (const h of hits) console.log(`${h.rank}. ${h.score.toFixed(4)}  ${h.source_uri}  ${h.text}`);
      } finally {
        await retriever.close();
      }
    });
}

export function registerEvalRetrievalCommand(program: Command): void {
  program
    .command('eval-retrieval')
    .description('retrieval quality on the real golden set (OCR_GS lines located in their OpenITI sources): recall@k, MRR, precision@k per configuration')
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
      const { defaultEvalConfigs, defaultEvalModels, describeEvalSummary, evalRetrieval } = await import('../../../src/eval/eval-retrieval');
      const { UserFacingError } = await import('../../../src/temporal/server');
      const { UsageError } = await import('../options');
      const openitiRoot = resolvePath(config.data.openiti_root);
      const ocrGsRoot = resolvePath(opts.ocrGsRoot);
      for (const [what, dir] of [['OpenITI root', openitiRoot], ['OCR_GS folder', ocrGsRoot]] as const) {
        if (!existsSync(dir)) throw new UserFacingError(`${what} not found: ${dir}`);
      }
      const wanted = opts.models.split(',').map((m) => m.trim());
      const models = defaultEvalModels(PROJECT_ROOT).filter((m) => wanted.includes(m.name));
      if (models.length !== wanted.length) throw new UsageError(`--models: choose from ${defaultEvalModels(PROJECT_ROOT).map((m) => m.name).join(', ')}`);
      const maxQueries = opts.maxQueries === undefined ? undefined : Number(opts.maxQueries);
      if (maxQueries !== undefined && !(Number.isInteger(maxQueries) && maxQueries > 0)) throw new UsageError(`--max-queries must be a positive integer, got "${opts.maxQueries}"`);
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
