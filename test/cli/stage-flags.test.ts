/**
 * Stage flags are declared once (bin/cli/commands/stages.ts STAGE_FLAGS) and shared: each stage command has
 * exactly its flags, `phase5 run` has every stage flag except those that cannot apply to a whole study, and a
 * flag parsed on `run` reaches the run options and the config like on the stage command.
 */
import { expect } from 'chai';
import type { Command } from 'commander';
import { buildProgram } from '../../bin/cli/main';
import { flagsOf, STAGE_FLAGS } from '../../bin/cli/commands/stages';
import { resolveConfig, runOptions, type GlobalFlags, type StageFlags } from '../../bin/cli/options';

/** The flags a command shows (a renamed flag is registered hidden, only to refuse it: test/cli/renamed.test.ts). */
const longFlags = (cmd: Command) =>
  cmd.options
    .filter((o) => !o.hidden)
    .map((o) => o.long!)
    .sort();
const command = (name: string) => buildProgram().commands.find((c) => c.name() === name)!;
const longOf = (flags: string) => flags.split(/[ ,]/)[0];

describe('cli stage flags', () => {
  it('each stage command has the flags declared for it, and every declared flag belongs to a stage', () => {
    for (const stage of ['build', 'export', 'infer', 'analyze'] as const) {
      const declared = STAGE_FLAGS.filter((f) => f.stages.includes(stage)).map((f) => longOf(f.flags));
      expect(longFlags(command(stage)), stage).to.deep.equal(['--detach', '--force', ...declared].sort());
    }
    expect(longFlags(command('infer'))).to.include.members(['--limit', '--retry-failed', '--import', '--arm', '--baseline-dir']);
    for (const f of STAGE_FLAGS) expect(f.stages.length, f.flags).to.be.greaterThan(0);
  });

  it('phase5 run accepts every stage flag that applies to a study, and only those are left out that say why', () => {
    const run = longFlags(command('run'));
    const everyStageFlag = [...new Set(STAGE_FLAGS.map((f) => longOf(f.flags)))];
    const left = everyStageFlag.filter((f) => !run.includes(f));
    expect(left.sort()).to.deep.equal(['--arm', '--batch-in', '--batch-out', '--import']);
    for (const f of STAGE_FLAGS.filter((x) => left.includes(longOf(x.flags)))) expect(f.notInRun, f.flags).to.be.a('string').and.not.empty;
    // Flags `run` lacked before they were shared: the build/export paths and --retry-failed.
    expect(run).to.include.members(['--corpus-path', '--index-path', '--retry-failed', '--force-stage', '--no-error-analysis']);
    expect(flagsOf('run').map((f) => longOf(f.flags))).to.not.include('--import');
  });

  it('a flag on run reaches the run options and the config as on the stage command', async () => {
    const program = buildProgram();
    const run = program.commands.find((c) => c.name() === 'run')!;
    let seen: (GlobalFlags & StageFlags) | undefined;
    run.action((_opts, cmd: Command) => {
      seen = cmd.optsWithGlobals<GlobalFlags & StageFlags>();
    });
    await program.parseAsync(
      ['run', '--corpus-path', '/tmp/c.jsonl', '--index-path', '/tmp/i.usearch', '--retry-failed', '--top-k', '4', '--no-error-analysis'],
      { from: 'user' },
    );
    expect(seen).to.include({
      corpusPath: '/tmp/c.jsonl',
      indexPath: '/tmp/i.usearch',
      retryFailed: true,
      topK: '4',
      errorAnalysis: false,
    });
    const { config } = resolveConfig({}, seen!);
    expect(config.retrieval.top_k).to.equal(4);
    expect(config.analysis.analyze_errors).to.equal(false);
    expect(runOptions(seen!, config)).to.deep.equal({
      corpusPath: '/tmp/c.jsonl',
      indexPath: '/tmp/i.usearch',
      noErrorAnalysis: true,
      retryFailed: true,
    });
  });

  it('run rejects a flag that cannot apply to a study', async () => {
    const program = buildProgram();
    program.commands.find((c) => c.name() === 'run')!.configureOutput({ writeErr: () => undefined });
    const err = await program.parseAsync(['run', '--import', 'x.jsonl'], { from: 'user' }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.match(/unknown option '--import'/);
  });
});
