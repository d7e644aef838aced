/**
 * Bad-input suite — build stage, corpus step (buildCorpus of test/helpers/stage-calls.ts on a copy of the fixture
 * OpenITI checkout, test/fixtures/openiti/corpus, plus two files written here).
 *
 * Cases:
 *   - non-UTF-8 text file            → skipped, counted (not_utf8), logged with the path and byte offset;
 *                                       after re-encoding it, a forced rebuild parses it
 *   - file without OpenITI header    → skipped, counted (no_header), logged with the path
 *   - empty file                     → skipped, counted (no_header: "empty file"), logged with the path
 *   - metadata row with missing columns → skipped, counted (metadataBadRows), logged as csv:line
 *   - local_path escaping the root   → never opened; counted (path_outside_root), logged
 *   - missing text file              → counted (missing), logged with the row's local_path
 *   - a 1 MB line                    → counted as too long; the rest of its file is used
 *   - zero sentences after filters   → non-retryable failure listing every count; no corpus or temp
 *                                       file left; relaxed filters then build a complete corpus
 *   - metadata file missing          → non-retryable failure naming the file; fixed root then builds
 *   - OpenITI root missing           → non-retryable failure naming the setting
 * Every skip case also checks the build finished with a complete corpus that a re-run reuses.
 */
import { expect } from 'chai';
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import path from 'node:path';

import type { CorpusBuildSummary } from '../../src/openiti';
import { failsWithLogs, makeConfig, OPENITI_FIXTURE, stageInput, tmpDir, withLogs, type LogRecord } from './helpers';
import { createStageCalls } from '../helpers/stage-calls';
import { stagePaths } from '../../src/stages/study/layout';

const { buildCorpus } = createStageCalls();

const METADATA = path.join('metadata', 'OpenITI_metadata_2023-1-8.csv');
const HEADER = '######OpenITI#\n#META# 000.SortField\t:: X\n#META#Header#End#\n';
const LONG_FILE_SENTENCES = [
  'وقال صاحب الكتاب في الباب الطويل إن الحلم زينة العقلاء في كل زمان',
  'وروى صاحب الكتاب في الباب الطويل إن الأناة خير من العجلة عند الشدائد',
  'وذكر صاحب الكتاب في الباب الطويل إن القناعة كنز لا يفنى عند أهل الفضل',
];

/** A copy of the fixture checkout with an empty file and a file holding a 1 MB line, listed in the metadata. */
function checkout(): string {
  const root = path.join(tmpDir('openiti'), 'openiti');
  cpSync(OPENITI_FIXTURE, root, { recursive: true });
  const addRow = (uri: string, date: string, content: string | Buffer) => {
    const [author, book] = uri.split('.');
    const rel = `../data/${author}/${author}.${book}/${uri}`;
    const file = path.join(root, 'metadata', rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    // 17 tab-separated columns like the real metadata (see the fixture's header line).
    const row = [
      uri,
      date,
      'مؤلف',
      author,
      `${author}.${book}`,
      'كتاب',
      book,
      '',
      uri.split('.')[2].replace(/-ara1$/, ''),
      'pri',
      '100',
      rel,
      '_NOTAG',
      author,
      '',
      '',
      '500',
    ];
    writeFileSync(path.join(root, METADATA), readFileSync(path.join(root, METADATA), 'utf8').replace(/\n?$/, '\n') + row.join('\t') + '\n');
  };
  addRow('0270AuthorJ.Empty.Fix015-ara1', '0270', '');
  const word = 'والكلام ';
  const longLine = '# ' + word.repeat(Math.ceil((1 << 20) / Buffer.byteLength(word)));
  addRow(
    '0275AuthorK.Long.Fix016-ara1',
    '0275',
    HEADER + `# ${LONG_FILE_SENTENCES[0]}\n${longLine}\n# ${LONG_FILE_SENTENCES[1]}\n# ${LONG_FILE_SENTENCES[2]}\n`,
  );
  return root;
}

const LONG_URI = '0275AuthorK.Long.Fix016-ara1';

describe('bad-input suite', function () {
  this.timeout(60000);

  describe('build: corpus', () => {
    let root: string;
    let resultsDir: string;
    let result: Awaited<ReturnType<typeof buildCorpus>>;
    let summary: CorpusBuildSummary;
    let logs: LogRecord[];
    const warned = (reason: string) => logs.filter((l) => l.level === 40 && l.reason === reason);

    before(async () => {
      root = checkout();
      resultsDir = tmpDir('corpus');
      const input = stageInput(makeConfig(resultsDir, { data: { openiti_root: root }, corpus: { max_sentences: 1000 } }));
      const r = await withLogs(() => buildCorpus(input));
      result = r.result;
      logs = r.logs;
      summary = (JSON.parse(readFileSync(`${result.corpusPath}.build.json`, 'utf8')) as { summary: CorpusBuildSummary }).summary;
    });

    it('non-UTF-8 text file', async () => {
      expect(result.filesSkipped.not_utf8).to.equal(1);
      const [w] = warned('not_utf8');
      expect(w.path).to.match(/0250AuthorF\.Latin1\.Fix008-ara1$/);
      expect(w.detail).to.match(/not valid UTF-8 \(near byte \d+\)/);
      // Fix the encoding (the body is cp1256), rebuild: the file is parsed now.
      const file = w.path as string;
      const fixed = readFileSync(file)
        .toString('latin1')
        .split('\n')
        .map((l) => {
          const b = Buffer.from(l, 'latin1');
          return isUtf8(b) ? b.toString('utf8') : new TextDecoder('windows-1256').decode(b);
        })
        .join('\n');
      const copy = tmpDir('reencoded');
      cpSync(root, copy, { recursive: true });
      writeFileSync(path.join(copy, path.relative(root, file)), fixed, 'utf8');
      const input = stageInput(
        makeConfig(tmpDir('corpus-fixed'), { data: { openiti_root: copy }, corpus: { max_sentences: 1000 } }),
        {},
        true,
      );
      const again = await withLogs(() => buildCorpus(input));
      expect(again.result.filesSkipped.not_utf8).to.equal(0);
      expect(again.result.filesParsed).to.equal(result.filesParsed + 1);
      expect(again.logs.filter((l) => l.reason === 'not_utf8')).to.have.length(0);
    });

    it('file without OpenITI header', () => {
      const w = warned('no_header').find((l) => /NoHeader/.test(String(l.path)));
      expect(w, 'a warning naming the file').to.not.equal(undefined);
      expect(w!.detail).to.match(/no OpenITI header \(first line is .*expected "######OpenITI#"\)/);
      expect(summary.files.examples.no_header.join('\n')).to.contain('0250AuthorF.NoHeader.Fix009-ara1');
    });

    it('empty file', () => {
      const w = warned('no_header').find((l) => /0270AuthorJ\.Empty\.Fix015-ara1$/.test(String(l.path)));
      expect(w, 'a warning naming the empty file').to.not.equal(undefined);
      expect(w!.detail).to.equal('empty file (no OpenITI header)');
      expect(result.filesSkipped.no_header).to.equal(2); // the header-less file and the empty one
    });

    it('metadata row with missing columns', () => {
      const csv = readFileSync(path.join(root, METADATA), 'utf8').split('\n');
      const line = csv.findIndex((l) => l.startsWith('0270AuthorH.Short')) + 1;
      expect(result.metadataBadRows).to.be.greaterThan(0);
      const w = logs.find((l) => l.msg === 'openiti: metadata row skipped' && String(l.where).endsWith(`${METADATA}:${line}`));
      expect(w, `a warning naming ${METADATA}:${line}`).to.not.equal(undefined);
      expect(w!.detail).to.equal('expected 17 tab-separated columns, got 5');
      expect(summary.metadata.examples.join('\n')).to.contain(`:${line}: expected 17 tab-separated columns`);
    });

    it('local_path escaping the root', () => {
      expect(result.filesSkipped.path_outside_root).to.equal(1);
      const [w] = warned('path_outside_root');
      expect(w.detail).to.match(/0260AuthorG\.Escape\.Fix010-ara1 — local_path ".*etc\/passwd" leaves the corpus root/);
      expect(readFileSync(result.corpusPath, 'utf8')).to.not.contain('root:x:0:0');
    });

    it('missing text file', () => {
      expect(result.filesSkipped.missing).to.equal(1);
      const [w] = warned('missing');
      expect(w.path).to.contain('0300AuthorE.Lost.Fix007-ara1');
      expect(w.detail).to.match(/file listed in the metadata is absent/);
    });

    it('a 1 MB line', () => {
      expect(summary.sentences.tooLong).to.be.greaterThan(0);
      const fromLong = readFileSync(result.corpusPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { text: string; source_uri: string; char_len: number })
        .filter((r) => r.source_uri === LONG_URI);
      expect(fromLong.map((r) => r.text)).to.deep.equal(LONG_FILE_SENTENCES); // the rest of the file is used
      expect(Math.max(...fromLong.map((r) => r.char_len))).to.be.at.most(300);
      // The whole corpus is complete and a re-run reuses it (nothing half-written).
      expect(readFileSync(result.corpusPath, 'utf8').trim().split('\n')).to.have.length(result.sentences);
    });

    it('a re-run after the skips reuses the finished corpus', async () => {
      const input = stageInput(makeConfig(resultsDir, { data: { openiti_root: root }, corpus: { max_sentences: 1000 } }));
      const again = await withLogs(() => buildCorpus(input));
      expect(again.result.reused).to.equal(true);
      expect(again.result.sha256).to.equal(result.sha256);
    });

    it('zero sentences after filters', async () => {
      const dir = tmpDir('corpus-empty');
      const strict = stageInput(makeConfig(dir, { corpus: { min_char_len: 290, max_char_len: 300 } }));
      const { message } = await failsWithLogs(
        () => buildCorpus(strict),
        /no sentences left after filters/,
        /\d+ shorter than 290, \d+ longer than 300/,
        /Check openitiRoot, statusFilter, eras, exclude and minCharLen\/maxCharLen/,
      );
      expect(message).to.not.match(/\n\s+at /); // a message, not a stack trace
      const folder = path.dirname(stagePaths(strict.config, {}).corpus);
      expect(existsSync(folder) ? readdirSync(folder) : []).to.deep.equal([]); // no corpus, no temp file
      const fixed = await withLogs(() => buildCorpus(stageInput(makeConfig(dir))));
      expect(fixed.result.reused).to.equal(false);
      expect(fixed.result.sentences).to.equal(40);
      expect(readFileSync(fixed.result.corpusPath, 'utf8').trim().split('\n')).to.have.length(40);
    });

    it('metadata file missing', async () => {
      const bare = tmpDir('no-metadata');
      cpSync(path.join(OPENITI_FIXTURE, 'data'), path.join(bare, 'data'), { recursive: true });
      const dir = tmpDir('corpus-nometa');
      await failsWithLogs(
        () => buildCorpus(stageInput(makeConfig(dir, { data: { openiti_root: bare } }))),
        /metadataPath .*metadata\/OpenITI_metadata_2023-1-8\.csv does not exist/,
      );
      cpSync(path.join(OPENITI_FIXTURE, 'metadata'), path.join(bare, 'metadata'), { recursive: true });
      const fixed = await withLogs(() => buildCorpus(stageInput(makeConfig(dir, { data: { openiti_root: bare } }))));
      expect(fixed.result.sentences).to.equal(40);
    });

    it('OpenITI root missing', async () => {
      const dir = tmpDir('corpus-noroot');
      const missing = path.join(dir, 'nowhere');
      await failsWithLogs(
        () => buildCorpus(stageInput(makeConfig(dir, { data: { openiti_root: missing } }))),
        new RegExp(`OpenITI root not found: ${missing}`),
        /data\.openiti_root, OPENITI_ROOT or --openiti-root/,
      );
    });
  });
});
