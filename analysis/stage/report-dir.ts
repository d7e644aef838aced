import path from 'node:path';

/** The one report of a results dir (docs/report.md): `<results>/study/`, beside arms.json. */
export function studyReportDir(resultsDir: string): string {
  return path.join(resultsDir, 'study');
}
