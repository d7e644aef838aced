/**
 * Static facts about the project's own TypeScript, read with the compiler's parser (no type check):
 * the import graph (for the dependency rules) and the length of every function (for the 80-line rule).
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const CODE_FOLDERS = ['src', 'activities', 'workflows', 'analysis', 'bin', 'scripts', 'bench'] as const;

export function listTsFiles(root: string, folders: readonly string[] = CODE_FOLDERS): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) {
        if (name !== 'node_modules' && name !== 'fixtures') walk(p);
      } else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const f of folders) if (existsSync(path.join(root, f))) walk(path.join(root, f));
  return out.sort();
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
}

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Resolve a relative specifier to a project file (`./x` → x.ts or x/index.ts); null for packages. */
function resolveSpecifier(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const cand of [base, `${base}.ts`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')]) {
    if (existsSync(cand) && statSync(cand).isFile()) return cand;
  }
  return null;
}

function isTypeOnlyImport(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false; // side-effect import
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

/** Every static and dynamic import between project files. */
export function importEdges(files: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const visit = (node: ts.Node) => {
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        const to = resolveSpecifier(file, node.moduleSpecifier.text);
        if (to) edges.push({ from: file, to, typeOnly: isTypeOnlyImport(node) });
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        const to = resolveSpecifier(file, node.arguments[0].text);
        if (to) edges.push({ from: file, to, typeOnly: false });
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        const to = resolveSpecifier(file, node.argument.literal.text);
        if (to) edges.push({ from: file, to, typeOnly: true });
      }
      ts.forEachChild(node, visit);
    };
    visit(parse(file));
  }
  return edges;
}

/** Import cycles over every import, type-only ones included (a type-only circle still ties the files' concepts together), each as a list of files. */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const e of edges) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  // Tarjan's strongly connected components: any component of 2+ files (or a self-edge) is a cycle.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return cycles;
}

export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
  /** The comment line right above the function says why it is long (`// long: …`). */
  justified: boolean;
}

function functionName(node: ts.Node): string {
  const n = (node as { name?: ts.Node }).name;
  if (n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n))) return n.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}

/** Length in lines of every named function, method and arrow function assigned to a name. */
export function functionLengths(files: readonly string[]): FunctionLength[] {
  const out: FunctionLength[] = [];
  for (const file of files) {
    const sf = parse(file);
    const lines = sf.text.split('\n');
    const visit = (node: ts.Node) => {
      const isFn =
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) ||
        ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
          (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)));
      if (isFn && (node as ts.FunctionLikeDeclaration).body) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const above = lines.slice(Math.max(0, start - 3), start).join('\n');
        out.push({ file, name: functionName(node), line: start + 1, lines: end - start + 1, justified: /\/\/ long: /.test(above) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}
