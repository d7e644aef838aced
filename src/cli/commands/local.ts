import type { Command } from 'commander';
import { resolveConfig, runOptions, type GlobalFlags, type StageFlags } from '../options';

/** Commands that work on local files without Temporal: report, retrieve, eval-retrieval. */
export function registerLocalCommands(program: Command): void {
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
      const { analyzeOptions } = await import('../../../activities/analyze');
      const { analyzeStudy } = await import('../../../analysis');
      const { existsSync } = await import('node:fs');
      const opts = await analyzeOptions(config, options);
      if (!existsSync(`${opts.phase5Dir}/corrections.jsonl`)) {
        const { UserFacingError } = await import('../../temporal/server');
        throw new UserFacingError(`no corrections in ${opts.phase5Dir} — run \`phase5 infer\` first (or \`phase5 infer --import FILE\`)`);
      }
      const t = Date.now();
      const summary = await analyzeStudy({ ...opts, progress: 'silent' });
      for (const d of summary.datasets) {
        console.log(`${d.dataset.padEnd(34)} n=${String(d.num_samples).padStart(5)}  OCR CER ${fmt(d.ocr_cer)}  zero-shot ${fmt(d.phase2_cer)}  RAG ${fmt(d.phase5_cer)}  ΔCER ${fmt(d.delta_cer)}`);
      }
      for (const w of summary.warnings) console.error(`warning: ${w}`);
      console.log(`${summary.files.length} files written in ${summary.phase5_dir} (${((Date.now() - t) / 1000).toFixed(1)} s); report: ${summary.phase5_dir}/report.html`);
    });
}

function fmt(x: number | null): string {
  return x === null ? '   -  ' : x.toFixed(4);
}
