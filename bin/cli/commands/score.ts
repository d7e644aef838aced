/** `phase5 score`: outside systems' output files scored as a study (analysis/outside/score-files.ts), no Temporal. */
import type { Command } from 'commander';
import { resolveConfig, UsageError, type GlobalFlags } from '../options';

type ScoreOpts = {
  reference?: string[];
  gold?: string;
  ocr?: string;
  system?: string[];
  replicates?: string[];
  profile?: string;
  report: boolean;
};

/** `NAME=VALUE` → [NAME, VALUE], or a usage error naming the flag. */
function pair(flag: string, v: string): [string, string] {
  const i = v.indexOf('=');
  if (i <= 0 || i === v.length - 1) throw new UsageError(`${flag} ${v}: expected NAME=${flag === '--system' ? 'FILE' : 'RUN,RUN…'}`);
  return [v.slice(0, i), v.slice(i + 1)];
}

export function registerScoreCommand(program: Command): void {
  program
    .command('score')
    .description(
      'score outside systems against references (HIPE-OCRepair JSONL, or paired text) as a study: study/arms.json, tidy tables, report',
    )
    .option('--reference <files...>', 'reference files in HIPE-OCRepair JSONL (ground truth and OCR per document)')
    .option('--gold <file>', 'paired text: the gold lines')
    .option('--ocr <file>', 'paired text: the OCR lines')
    .option(
      '--system <name=file...>',
      "a system's outputs (HIPE-OCRepair JSONL, or paired text); a name may repeat, one file per reference",
    )
    .option('--replicates <arm=runs...>', 'systems that are runs of one team: arm=run1,run2,… (one arm, its runs as replicates)')
    .option('--profile <name>', 'normalisation profile every figure is scored under (nfc, no_diacritics, hipe2026, or one of the config)')
    .option('--no-report', 'write arms.json and the tidy tables only')
    .action(async (opts: ScoreOpts, cmd: Command) => {
      const flags = cmd.optsWithGlobals<GlobalFlags>();
      const { config } = resolveConfig(flags);
      const { resultDirs } = await import('../../../src/config/load');
      const { scoreFiles } = await import('../../../analysis/outside/score-files');
      const { scoreSummary, scoreTableLines } = await import('../../../analysis/outside/score-summary');
      const systems = (opts.system ?? []).map((v) => {
        const [name, file] = pair('--system', v);
        return { name, file };
      });
      const replicates = Object.fromEntries(
        (opts.replicates ?? []).map((v) => pair('--replicates', v)).map(([n, runs]) => [n, runs.split(',')]),
      );
      const a = config.analysis;
      const t = Date.now();
      const say = flags.json ? () => {} : (line: string) => console.error(line);
      const result = await scoreFiles({
        resultsDir: resultDirs(config).root,
        references: opts.reference,
        gold: opts.gold,
        ocr: opts.ocr,
        systems,
        replicates,
        normalization: { primary: opts.profile ?? a.normalization.primary, secondary: [], profiles: a.normalization.profiles },
        bootstrap: { iterations: a.bootstrap_iterations, seed: a.bootstrap_seed },
        minClusters: a.min_clusters,
        primaryMetric: a.primary_metric,
        report: opts.report,
        onStep: say,
      });
      const summary = scoreSummary(result.analysis);
      if (flags.json) return void console.log(JSON.stringify({ ...summary, files: result.files }, null, 2));
      for (const line of scoreTableLines(summary)) console.log(line);
      for (const w of summary.warnings) console.error(`warning: ${w}`);
      console.log(`${result.files.length} files written in ${resultDirs(config).root} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    });
}
