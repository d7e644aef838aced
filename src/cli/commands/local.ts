import type { Command } from 'commander';

/** Commands that work on local files without Temporal: report, retrieve, eval-retrieval. */
export function registerLocalCommands(_program: Command): void {
  // wired in with the analysis and retrieval modules
}
