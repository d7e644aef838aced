/**
 * The docs hold together, checked on the real tree:
 *  - README.md links to every docs/*.md;
 *  - every relative link in README.md and docs/*.md reaches a file, and its `#anchor` into a .md file is one of that
 *    file's headings as GitHub makes the anchor (test/helpers/doc-links.ts);
 *  - every `docs/<file>.md` or `docs/<file>.md#anchor` in the product code's comments and strings (.ts, .js, .json
 *    under src/, analysis/, activities/, workflows/, bin/, scripts/) resolves the same way;
 *  - README.md and docs/*.md narrate no history: no "moved from", "no longer", "used to", "formerly", "previously",
 *    no commit hash (test/helpers/doc-history.ts).
 * Each check also runs on a small synthetic tree that breaks it, so a checker that found nothing would fail.
 */
import { expect } from 'chai';
import { fileTree } from '../helpers/file-tree';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { historyNarration } from '../helpers/doc-history';
import { anchors, brokenLink, docRefs, links, slug } from '../helpers/doc-links';
import { REPO_ROOT } from '../helpers/shared-data';

const CODE = ['src', 'analysis', 'activities', 'workflows', 'bin', 'scripts'];

/** README.md and every docs/*.md under a root. */
function docs(root: string): string[] {
  const dir = path.join(root, 'docs');
  const mds = readdirSync(dir).filter((f) => f.endsWith('.md'));
  return [path.join(root, 'README.md'), ...mds.sort().map((f) => path.join(dir, f))];
}

function codeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : codeFiles(p);
    return /\.(ts|js|cjs|mjs|json)$/.test(name) ? [p] : [];
  });
}

/** Each broken link of the docs, as "file:line target (why)". */
function brokenDocLinks(root: string): string[] {
  return docs(root).flatMap((file) =>
    links(readFileSync(file, 'utf8')).flatMap(({ line, target }) => {
      const why = brokenLink(file, target);
      return why ? [`${path.relative(root, file)}:${line} ${target} (${why})`] : [];
    }),
  );
}

/** Each docs/ reference in the code that leads nowhere, as "file ref (why)". */
function brokenCodeRefs(root: string, folders: readonly string[]): string[] {
  const files = folders.flatMap((f) => codeFiles(path.join(root, f)));
  return files.flatMap((file) =>
    docRefs(readFileSync(file, 'utf8')).flatMap((ref) => {
      const why = brokenLink(path.join(root, 'README.md'), ref);
      return why ? [`${path.relative(root, file)} ${ref} (${why})`] : [];
    }),
  );
}

/** The docs/*.md that README.md does not link to. */
function unlinkedDocs(root: string): string[] {
  const readme = path.join(root, 'README.md');
  const reached = new Set(links(readFileSync(readme, 'utf8')).map((l) => path.resolve(root, l.target.split('#')[0])));
  return docs(root)
    .slice(1)
    .filter((f) => !reached.has(f))
    .map((f) => path.relative(root, f));
}

function history(root: string): string[] {
  return docs(root).flatMap((f) => historyNarration(readFileSync(f, 'utf8')).map((h) => `${path.relative(root, f)} ${h}`));
}

const tree = (files: Record<string, string>): string => fileTree('doc-links-', files);

describe('docs: links and words', () => {
  it('reads the real tree (sanity: docs, links and code references found)', () => {
    expect(docs(REPO_ROOT).length).to.be.greaterThan(30);
    expect(docs(REPO_ROOT).flatMap((f) => links(readFileSync(f, 'utf8'))).length).to.be.greaterThan(50);
    expect(
      CODE.flatMap((f) => codeFiles(path.join(REPO_ROOT, f))).flatMap((f) => docRefs(readFileSync(f, 'utf8'))).length,
    ).to.be.greaterThan(100);
  });

  it('README.md links to every docs/*.md', () => {
    expect(unlinkedDocs(REPO_ROOT)).to.deep.equal([]);
  });

  it('every relative link in README.md and docs/*.md reaches its file and anchor', () => {
    expect(brokenDocLinks(REPO_ROOT)).to.deep.equal([]);
  });

  it("every docs/<file>.md#anchor in the product code's comments and strings resolves", () => {
    expect(brokenCodeRefs(REPO_ROOT, CODE)).to.deep.equal([]);
  });

  it('README.md and docs/*.md narrate no history', () => {
    expect(history(REPO_ROOT)).to.deep.equal([]);
  });

  describe('the checks catch what they are for', () => {
    it("makes GitHub's anchors: punctuation dropped, code kept as text, repeats numbered", () => {
      expect(slug('arms.json: the bounded figures')).to.equal('armsjson-the-bounded-figures');
      expect(slug('Planning a study: `phase5 plan`, random pilots')).to.equal('planning-a-study-phase5-plan-random-pilots');
      expect(slug('temporal-compose.yml with TLS — `x_y`')).to.equal('temporal-composeyml-with-tls--x_y');
      const md = '# A\n## Notes\n```\n# not a heading\n```\n## Notes\n### Notes ##\n';
      expect([...anchors(md)]).to.deep.equal(['a', 'notes', 'notes-1', 'notes-2']);
    });

    it('flags a missing file, a missing anchor, an unlinked doc, a bad code reference and history', () => {
      const root = tree({
        'README.md': '[a](docs/a.md) [web](https://example.org/x.md#nowhere)\n',
        'docs/a.md': '# A\n## Two words\n[ok](b.md#b) [ok](#two-words) [gone](c.md) [bad](b.md#nope) `[code](x.md)`\n',
        'docs/b.md':
          '# B\nThis key no longer exists; see commit 3fa2c91b.\n\nAt 3,000 lines the sha256 of arms.json begins `4d89fe2b0fc26088`.\n',
        'src/x.ts': '// docs/a.md#two-words, docs/a.md#three, docs/z.md, github.com/o/r/docs/q.md#w\n',
      });
      expect(unlinkedDocs(root)).to.deep.equal(['docs/b.md']);
      expect(brokenDocLinks(root)).to.deep.equal(['docs/a.md:3 c.md (no file c.md)', 'docs/a.md:3 b.md#nope (no anchor #nope in b.md)']);
      expect(brokenCodeRefs(root, ['src'])).to.deep.equal([
        'src/x.ts docs/a.md#three (no anchor #three in docs/a.md)',
        'src/x.ts docs/z.md (no file docs/z.md)',
      ]);
      expect(history(root)).to.deep.equal(['docs/b.md line 2: "no longer"', 'docs/b.md line 2: commit 3fa2c91b']);
    });

    it('reads "is used to" as what is, "used to" alone as history', () => {
      expect(historyNarration('The index is used to rank.\nIt used to rank.\n')).to.deep.equal(['line 2: "used to"']);
    });
  });
});
