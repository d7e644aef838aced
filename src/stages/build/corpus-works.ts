/**
 * The `add_works` step of a corpus (`corpus.add_works`, or a study arm's `corpus.add_works`): whole works
 * appended to a sampled corpus.jsonl (every content line within the length filter, in file order, skipping lines
 * whose duplicate key the corpus already holds), with the build summary's sha256 and count updated so the
 * up-to-date check sees the final file.
 */
import { appendFileSync } from 'node:fs';
import type { CorpusBuildSummary } from '../../openiti/build-summary';
import { codePointLength } from '../../openiti/char-classes';
import { loadCorpus } from '../../openiti/corpus-file';
import { dedupKey } from '../../openiti/scan-eligible';
import { readSourceLines } from '../../retrieval/source-lines';
import { sha256File } from '../../util/hash';
import { childLogger } from '../../util/log';
import { selectWorkFiles } from '../../witness/works';
import { UserInputError } from '../shared/types';

const log = childLogger('build');

interface AddWorksSettings {
  openitiRoot: string;
  addWorks?: string[];
  minCharLen: number;
  maxCharLen: number;
  statusFilter: 'pri' | 'sec' | 'all';
}

/** Append the `addWorks` works in full to `outPath`; the summary gains `addedWorks` and the new sha256 / count. */
export async function addWholeWorks<S extends CorpusBuildSummary>(summary: S, settings: AddWorksSettings, outPath: string): Promise<S> {
  const { files, missing } = await selectWorkFiles({
    openitiRoot: settings.openitiRoot,
    include: settings.addWorks,
    status: settings.statusFilter,
  });
  if (files.length === 0)
    throw new UserInputError(
      `corpus add_works ${JSON.stringify(settings.addWorks)}: no ${settings.statusFilter === 'all' ? '' : `${settings.statusFilter} `}work of the metadata matches`,
    );
  const existing = await loadCorpus(outPath);
  const seen = new Set(existing.map((s) => dedupKey(s.text)));
  let idx = existing.length;
  let duplicates = 0;
  const perWork: Record<string, number> = {};
  for (const f of files) {
    const rows: string[] = [];
    for (const l of await readSourceLines(f.file)) {
      const n = codePointLength(l.text);
      if (n < settings.minCharLen || n > settings.maxCharLen) continue;
      const key = dedupKey(l.text);
      if (seen.has(key)) {
        duplicates++;
        continue;
      }
      seen.add(key);
      rows.push(JSON.stringify({ text: l.text, source_uri: f.uri, date: f.date, char_len: n, idx: idx++, line: l.line }));
    }
    if (rows.length) appendFileSync(outPath, `${rows.join('\n')}\n`);
    perWork[f.uri] = rows.length;
  }
  const added = idx - existing.length;
  log.info(
    { works: files.length, added, duplicates, missing: missing.length },
    `corpus: ${added} sentences of ${files.length} whole work(s) added`,
  );
  return {
    ...summary,
    corpusSha256: await sha256File(outPath),
    totalWritten: summary.totalWritten + added,
    addedWorks: { works: perWork, sentences: added, duplicates, missing },
  };
}
