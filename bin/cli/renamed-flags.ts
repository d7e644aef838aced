/**
 * Command-line flags the design document names differently (docs/configuration.md#renamed-keys): accepted as
 * aliases of their new names, hidden from --help. `--phase2-dir` is the design document's `--baseline-dir`.
 * (vocab-codemod: keep — this table names the old flags on purpose.)
 */
import { Option, type Command } from 'commander';

const ALIASED_FLAGS = [
  { flags: '--phase2-dir <dir>', attribute: 'phase2Dir', now: '--baseline-dir', nowAttribute: 'baselineDir' },
] as const;

/** Register the aliases (hidden) on a command that has their new flags. */
export function addRenamedFlags(cmd: Command): Command {
  for (const f of ALIASED_FLAGS) cmd.addOption(new Option(f.flags).hideHelp());
  return cmd;
}

/**
 * The flags with each alias given folded into its new name; an alias and its new flag given together with
 * different values is a usage error (`--phase2-dir and --baseline-dir name different folders`).
 */
export function foldAliasedFlags<T extends object>(flags: T): { flags: T; problem: string | null } {
  const out = { ...flags } as Record<string, unknown>;
  for (const f of ALIASED_FLAGS) {
    const alias = out[f.attribute];
    if (alias === undefined) continue;
    const now = out[f.nowAttribute];
    if (now !== undefined && now !== alias)
      return {
        flags,
        problem: `${f.flags.split(' ')[0]} and ${f.now} name different folders (${String(alias)}, ${String(now)}): give one`,
      };
    out[f.nowAttribute] = alias;
    delete out[f.attribute];
  }
  return { flags: out as T, problem: null };
}
