/** Local embedding models the embed/index tests run against (models/ is set up by `npm run setup`). */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { MODEL_FILE_CANDIDATES } from '../../src/embed/model-dir';
import { REPO_ROOT } from '../helpers/shared-data';

export interface TestModel {
  name: string;
  dir: string;
  /** Prefixes differ between query and passage (E5). */
  prefixed: boolean;
}

export const MINILM: TestModel = { name: 'all-MiniLM-L6-v2', dir: path.join(REPO_ROOT, 'models', 'all-MiniLM-L6-v2'), prefixed: false };
export const E5: TestModel = {
  name: 'multilingual-e5-small',
  dir: path.join(REPO_ROOT, 'models', 'multilingual-e5-small'),
  prefixed: true,
};

export function modelPresent(m: TestModel): boolean {
  return existsSync(path.join(m.dir, 'tokenizer.json')) && MODEL_FILE_CANDIDATES.some((c) => existsSync(path.join(m.dir, c)));
}

/** MiniLM always (skipping with a message if setup has not run), E5 when its model.onnx exists. */
export const TEST_MODELS: TestModel[] = [MINILM, E5];

export function requireModel(ctx: Mocha.Context, m: TestModel): void {
  if (!modelPresent(m)) {
    console.log(`    (skipped: model ${m.name} not found at ${m.dir}; run \`npm run setup\`)`);
    ctx.skip();
  }
}
