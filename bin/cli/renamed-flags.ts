/**
 * Command-line flags renamed when the study took one vocabulary (docs/glossary.md): still accepted by the
 * parser, hidden from --help, and refused in one line naming the new flag.
 * (vocab-codemod: keep — this table names the old flags on purpose.)
 */
import { Option, type Command } from 'commander';

const RENAMED_FLAGS = [{ flags: '--phase2-dir <dir>', attribute: 'phase2Dir', now: '--baseline-dir' }] as const;

/** Register the old flags (hidden) on a command that has their new ones. */
export function addRenamedFlags(cmd: Command): Command {
  for (const f of RENAMED_FLAGS) cmd.addOption(new Option(f.flags).hideHelp());
  return cmd;
}

/** The usage error for a renamed flag that was given (`--phase2-dir was renamed to --baseline-dir`), else null. */
export function renamedFlagProblem(flags: object): string | null {
  const given = RENAMED_FLAGS.find((f) => (flags as Record<string, unknown>)[f.attribute] !== undefined);
  return given ? `${given.flags.split(' ')[0]} was renamed to ${given.now}` : null;
}
