/**
 * usearch loaded through its CommonJS build: the ESM build locates its native addon via `__dirname`,
 * which does not exist in plain Node ESM (it recurses until the stack overflows); under tsx it happens
 * to work. createRequire makes it work in both.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Usearch from 'usearch';

const require = createRequire(import.meta.url);
const usearch = require('usearch') as typeof Usearch;

export const { Index, MetricKind, ScalarKind } = usearch;
export type UsearchIndex = Usearch.Index;
export type UsearchMetric = Usearch.MetricKind;
export type UsearchScalar = Usearch.ScalarKind;

/** Version of the installed usearch package (recorded in manifests). */
export const USEARCH_VERSION: string = (() => {
  // package.json is not in usearch's "exports"; walk up from the resolved entry point.
  // (the nearest one is dist/cjs/package.json, which only sets "type").
  for (let dir = path.dirname(require.resolve('usearch')); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'usearch' && pkg.version) return pkg.version;
  }
  return 'unknown';
})();
