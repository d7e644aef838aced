/**
 * The Lines view's side files (analysis/explorer/bundle.ts) written to `report-lines/` beside report.html:
 * the folder is replaced whole, so no file of an earlier render lingers, and removed when the report has no
 * Lines view.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { linesBundle, SIDE_DIR } from './bundle';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Write the side files of `doc` (null: remove any) into `reportDir`; returns the files written, relative to it. */
export function writeLinesSideFiles(reportDir: string, doc: Json | null): string[] {
  const target = path.join(reportDir, SIDE_DIR);
  if (!doc) {
    rmSync(target, { recursive: true, force: true });
    return [];
  }
  const files = linesBundle(doc).files;
  const tmp = `${target}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const [name, text] of files) writeFileSync(path.join(tmp, path.basename(name)), text);
  rmSync(target, { recursive: true, force: true });
  renameSync(tmp, target);
  return [...files.keys()];
}
