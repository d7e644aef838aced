/** The study's tidy per-line table (docs/tidy-data.md): rows from the arms analysis, written as Parquet and CSV. */
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { tidyRows, type TidyInput } from './rows';
import { writeTidyFiles } from './write';

export { TIDY_FILES, TIDY_SCHEMA_ID, removeTidyFiles } from './write';
export { COUNT_NAMES, type TidyRow } from './columns';
export { tidyRows } from './rows';

/** Write `<resultsDir>/study/lines.parquet` and `lines.csv.gz`; returns their paths relative to resultsDir. */
export async function writeTidyLines(resultsDir: string, input: TidyInput, generatedAt: string): Promise<string[]> {
  const dir = path.join(resultsDir, 'study');
  mkdirSync(dir, { recursive: true });
  const rows = await tidyRows(input);
  const profiles = input.profiles.map((p) => p.name);
  const files = await writeTidyFiles(
    dir,
    rows,
    profiles,
    {
      primary_profile: profiles[0],
      profiles: profiles.join(','),
      generated_at: generatedAt,
    },
    input.probe != null,
  );
  return files.map((f) => `study/${f}`);
}
