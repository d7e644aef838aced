/**
 * Where the encoder runs: the CPU, or an NVIDIA GPU through onnxruntime-node's CUDA execution provider.
 * The CUDA provider is not in the npm package: its libraries (libonnxruntime_providers_cuda.so and
 * libonnxruntime_providers_shared.so) are downloaded next to the native binding by onnxruntime-node's
 * install script when asked (`ONNXRUNTIME_NODE_INSTALL=cuda12`, see docs/real-study.md#gpu-embedding), and they
 * need the CUDA 12 runtime and cuDNN 9 on the library path.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export type EmbeddingDevice = 'cpu' | 'cuda';
export const EMBEDDING_DEVICES: readonly EmbeddingDevice[] = ['cpu', 'cuda'];

/** The folder of onnxruntime-node's native binding for this platform (where the CUDA libraries go). */
export function onnxBindingDir(): string {
  const pkg = path.dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
  return path.join(pkg, 'bin', 'napi-v6', process.platform, process.arch);
}

/** Why this machine cannot try the CUDA provider, or null when its libraries are installed. */
export function cudaUnavailableReason(bindingDir = onnxBindingDir()): string | null {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return `onnxruntime-node has no CUDA execution provider for ${process.platform}-${process.arch}`;
  const lib = 'libonnxruntime_providers_cuda.so';
  if (!existsSync(path.join(bindingDir, lib))) return `onnxruntime-node's CUDA libraries are not installed (no ${lib} in ${bindingDir})`;
  return null;
}
