/**
 * The layout rules, checked on the real tree:
 *  - `src/` (the core) never imports `activities/`, `workflows/`, `analysis/` or the CLI (`bin/`);
 *  - `analysis/` imports only `src/` (and itself);
 *  - `activities/` never imports `workflows/` or the CLI; workflows import activities as types only;
 *  - no import cycle anywhere;
 *  - no function longer than 80 lines unless a `// long: <why>` comment right above says why.
 * Each rule also runs on a small synthetic tree that breaks it, so a checker that found nothing would fail.
 */
import { expect } from 'chai';
import { fileTree } from './helpers/file-tree';
import path from 'node:path';
import { functionLengths, importCycles, importEdges, listTsFiles, type ImportEdge } from './support/code-shape';
import { REPO_ROOT } from './helpers/shared-data';

const MAX_FUNCTION_LINES = 80;
const PRODUCT = ['src', 'activities', 'workflows', 'analysis', 'bin', 'scripts', 'bench'];

function folderOf(root: string, file: string): string {
  return path.relative(root, file).split(path.sep)[0];
}

/** Every import that breaks a dependency rule, as "from → to" lines. */
export function dependencyViolations(root: string, edges: readonly ImportEdge[]): string[] {
  const bad: string[] = [];
  for (const e of edges) {
    const from = folderOf(root, e.from);
    const to = folderOf(root, e.to);
    const broken =
      (from === 'src' && ['activities', 'workflows', 'analysis', 'bin'].includes(to)) ||
      (from === 'analysis' && !['src', 'analysis'].includes(to)) ||
      (from === 'activities' && ['workflows', 'bin'].includes(to)) ||
      (from === 'workflows' && to === 'activities' && !e.typeOnly) ||
      (from === 'workflows' && ['bin', 'analysis'].includes(to) && !e.typeOnly);
    if (broken) bad.push(`${path.relative(root, e.from)} → ${path.relative(root, e.to)}${e.typeOnly ? ' (type)' : ''}`);
  }
  return bad;
}

function tooLong(files: readonly string[], root: string): string[] {
  return functionLengths(files)
    .filter((f) => f.lines > MAX_FUNCTION_LINES && !f.justified)
    .map((f) => `${path.relative(root, f.file)}:${f.line} ${f.name} (${f.lines} lines)`);
}

const tree = (files: Record<string, string>): string => fileTree('arch-', files);

describe('architecture', () => {
  const files = listTsFiles(REPO_ROOT, PRODUCT);
  const edges = importEdges(files);

  it('reads the real tree (sanity: files and imports found)', () => {
    expect(files.length).to.be.greaterThan(100);
    expect(edges.length).to.be.greaterThan(200);
  });

  it('keeps the dependency direction: core ← analysis ← activities ← workflows (types only) ← CLI', () => {
    expect(dependencyViolations(REPO_ROOT, edges)).to.deep.equal([]);
  });

  it('has no import cycle', () => {
    expect(importCycles(edges).map((c) => c.map((f) => path.relative(REPO_ROOT, f)))).to.deep.equal([]);
  });

  it(`has no function longer than ${MAX_FUNCTION_LINES} lines without a "// long:" reason`, () => {
    expect(tooLong(files, REPO_ROOT)).to.deep.equal([]);
  });

  describe('the checks catch what they are for', () => {
    it('flags core → activities, analysis → workflows and a value import of activities in workflows', () => {
      const root = tree({
        'src/a.ts': "import { x } from '../activities/b';\nexport const y = x;\n",
        'activities/b.ts': 'export const x = 1;\n',
        'analysis/c.ts': "import type { W } from '../workflows/w';\nexport type Z = W;\n",
        'workflows/w.ts':
          "import { x } from '../activities/b';\nimport type { x as T } from '../activities/b';\nexport type W = typeof x | typeof T;\n",
      });
      const found = dependencyViolations(root, importEdges(listTsFiles(root, PRODUCT)));
      expect(found).to.deep.equal([
        'analysis/c.ts → workflows/w.ts (type)',
        'src/a.ts → activities/b.ts',
        'workflows/w.ts → activities/b.ts',
      ]);
    });

    it('finds a cycle through a dynamic import, and one through a type-only import', () => {
      const root = tree({
        'src/a.ts': "export const a = () => import('./b');\n",
        'src/b.ts': "import { a } from './a';\nexport const b = a;\n",
        'src/c.ts': "import type { d } from './d';\nexport const c: typeof d = 1;\n",
        'src/d.ts': "import { c } from './c';\nexport const d = c;\n",
        'src/e.ts': "import type { F } from './f';\nexport type E = { f: F };\n",
        'src/f.ts': "export type { E as F } from './e';\n",
        'src/g.ts': "import type { E } from './e';\nexport type G = E;\n",
      });
      const cycles = importCycles(importEdges(listTsFiles(root, PRODUCT)));
      const names = cycles.map((c) => c.map((f) => path.basename(f))).sort((x, y) => x[0].localeCompare(y[0]));
      expect(names).to.deep.equal([
        ['a.ts', 'b.ts'],
        ['c.ts', 'd.ts'],
        ['e.ts', 'f.ts'],
      ]);
    });

    it('measures functions, methods and named arrows, and honours a "// long:" reason', () => {
      const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
      const root = tree({
        'src/f.ts': [
          `export function long() {\n${body(85)}\n}`,
          `export const arrow = () => {\n${body(78)}\n};`,
          `class K {\n  method() {\n${body(81)}\n  }\n}`,
          `// long: one table of cases reads best in one place\nexport function justified() {\n${body(90)}\n}`,
          'export { K };',
        ].join('\n'),
      });
      expect(tooLong(listTsFiles(root, PRODUCT), root)).to.deep.equal(['src/f.ts:1 long (87 lines)', 'src/f.ts:169 method (83 lines)']);
    });
  });
});
