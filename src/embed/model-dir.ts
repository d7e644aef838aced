/**
 * Locating and sanity-checking a Hugging Face–layout model directory before onnxruntime sees it, so a
 * missing file, a Git LFS pointer or an empty download fails with a message that names the file instead
 * of "Protobuf parsing failed".
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';

export class ModelDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelDirError';
  }
}

export interface ModelDirFiles {
  dir: string;
  /** The main ONNX graph (`model.onnx` or `onnx/model.onnx`, or the configured file). */
  modelFile: string;
  /** External tensor data beside the model (`model.onnx_data` / `model.onnx.data`), when present. */
  externalDataFile: string | null;
  tokenizerFile: string;
}

/** Candidate graph locations, in order, when no explicit model file is configured. */
export const MODEL_FILE_CANDIDATES = ['model.onnx', path.join('onnx', 'model.onnx')];

const LFS_MAGIC = 'version https://git-lfs.github.com/spec/v1';

function readHead(file: string, bytes: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** True when `file` is a Git LFS pointer (a ~130-byte text stub) instead of the real content. */
export function isLfsPointer(file: string): boolean {
  return readHead(file, LFS_MAGIC.length).toString('latin1') === LFS_MAGIC;
}

/** Throws when `file` is empty or a Git LFS pointer; `what` names its role for the message. */
export function assertRealFile(file: string, what: string): void {
  const size = statSync(file).size;
  if (size === 0) throw new ModelDirError(`${what} ${file} is empty (0 bytes) — the download is incomplete; fetch the model again`);
  if (isLfsPointer(file)) {
    throw new ModelDirError(
      `${what} ${file} is a Git LFS pointer (starts with "${LFS_MAGIC}"), not the real file — ` +
        'run `git lfs pull` in the model repository or download the file itself',
    );
  }
}

/**
 * Resolve and check the files of a model directory. `modelFile` may be absolute or relative to `dir`.
 * Errors name the directory and the missing file, e.g. "model dir X has no tokenizer.json".
 */
export function resolveModelDir(dir: string, modelFile?: string): ModelDirFiles {
  const abs = path.resolve(dir);
  if (!existsSync(abs))
    throw new ModelDirError(`model dir ${abs} does not exist — run \`npm run setup\` or set the embedding model path in the config`);
  if (!statSync(abs).isDirectory()) throw new ModelDirError(`model dir ${abs} is not a directory`);

  let graph: string | undefined;
  if (modelFile) {
    graph = path.resolve(abs, modelFile);
    if (!existsSync(graph)) throw new ModelDirError(`model dir ${abs} has no ${modelFile} (configured model file)`);
  } else {
    graph = MODEL_FILE_CANDIDATES.map((c) => path.join(abs, c)).find((p) => existsSync(p));
    if (!graph) throw new ModelDirError(`model dir ${abs} has no ${MODEL_FILE_CANDIDATES.join(' or ')}`);
  }
  assertRealFile(graph, 'model file');

  const externalDataFile = [`${graph}_data`, `${graph}.data`].find((p) => existsSync(p)) ?? null;
  if (externalDataFile) assertRealFile(externalDataFile, 'external data file');

  const tokenizerFile = path.join(abs, 'tokenizer.json');
  if (!existsSync(tokenizerFile)) throw new ModelDirError(`model dir ${abs} has no tokenizer.json`);
  assertRealFile(tokenizerFile, 'tokenizer file');

  return { dir: abs, modelFile: graph, externalDataFile, tokenizerFile };
}
