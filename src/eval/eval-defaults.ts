/** The default models and retriever configurations a retrieval evaluation compares. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RetrievalPipelineInput } from '../retrieval/config';
import type { EvalConfig, EvalModelSpec } from './eval-types';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function defaultEvalModels(root = REPO_ROOT): EvalModelSpec[] {
  return [
    { name: 'e5-small', modelDir: path.join(root, 'models', 'multilingual-e5-small') },
    { name: 'minilm-l6', modelDir: path.join(root, 'models', 'all-MiniLM-L6-v2') },
  ];
}

/** The comparison the brief asks for; the first model gets every configuration, others the key ones. */
export function defaultEvalConfigs(models: readonly EvalModelSpec[]): EvalConfig[] {
  const hybrid = { enabled: true, fusion: 'rrf' as const };
  const rerank = { enabled: true, method: 'lexical' as const };
  const out: EvalConfig[] = [];
  models.forEach((m, i) => {
    const all: [string, RetrievalPipelineInput][] = [
      ['dense', {}],
      ['lexical (BM25 char-3)', { hybrid: { enabled: true, fusion: 'weighted', dense_weight: 0 } }],
      ['hybrid rrf', { hybrid }],
      ['hybrid weighted 0.5', { hybrid: { enabled: true, fusion: 'weighted', dense_weight: 0.5 } }],
      ['dense + rerank', { rerank }],
      ['hybrid + rerank', { hybrid, rerank }],
      ['dense + mmr 0.5', { mmr: { enabled: true, lambda: 0.5 } }],
      ['hybrid + rerank + mmr 0.7', { hybrid, rerank, mmr: { enabled: true, lambda: 0.7 } }],
      ['dense + cross-encoder (no model: fallback)', { rerank: { enabled: true, method: 'cross_encoder', model_dir: null } }],
    ];
    const pick = i === 0 ? all : all.filter(([n]) => n === 'dense' || n === 'hybrid + rerank');
    for (const [name, pipeline] of pick) out.push({ name, model: m.name, pipeline });
  });
  return out;
}
