import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The read-only real data beside the checkout (`../shared/data`); override with SHARED_DATA. */
export const SHARED_DATA = process.env.SHARED_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'data');
export const OPENITI_ROOT = path.join(SHARED_DATA, 'openiti');
export const OCR_GS_ROOT = path.join(SHARED_DATA, 'ocr-gs');
export const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');

/** Skip the calling suite/test with a clear message when the real data is absent. */
export function requireSharedData(ctx: Mocha.Context, sub: 'openiti' | 'ocr-gs'): string {
  const dir = path.join(SHARED_DATA, sub);
  if (!existsSync(dir)) {
    console.log(`    (skipped: real data not found at ${dir}; set SHARED_DATA to run this test)`);
    ctx.skip();
  }
  return dir;
}
