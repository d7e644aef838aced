/** A small probe study for tests: JSONL datasets written to a temp dir and a config whose LLM is an OpenAI-compatible endpoint (key in PROBE_TEST_KEY). */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { mulberry32 } from '../../src/util/random';

const LETTERS = 'ابتثجحخدذرزسشصضطظعغفقكلمنهوي';

/** `n` lines of `words` seeded pseudo-Arabic words each (3–6 letters). */
export function randomLines(seed: number, n: number, words = 8): string[] {
  const rand = mulberry32(seed);
  const word = () => Array.from({ length: 3 + Math.floor(rand() * 4) }, () => LETTERS[Math.floor(rand() * LETTERS.length)]).join('');
  return Array.from({ length: n }, () => Array.from({ length: words }, word).join(' '));
}

export function probeStudy(
  datasets: Record<string, string[]>,
  extra: { baseUrl?: string; probe?: Record<string, unknown>; infer?: Record<string, unknown> } = {},
): { config: Config; dir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-study-'));
  mkdirSync(path.join(dir, 'data'));
  const specs: Record<string, unknown> = {};
  for (const [key, lines] of Object.entries(datasets)) {
    const file = path.join(dir, 'data', `${key}.jsonl`);
    writeFileSync(
      file,
      lines.map((gt, i) => JSON.stringify({ sample_id: `${key}/${String(i).padStart(4, '0')}`, ocr_text: gt, gt_text: gt })).join('\n') +
        '\n',
    );
    specs[key] = { type: 'jsonl', path: file };
  }
  const raw = {
    run_name: 'probe-test',
    paths: { results_dir: path.join(dir, 'results') },
    datasets: specs,
    infer: extra.infer ?? {
      backend: 'openai',
      openai: { base_url: extra.baseUrl, model: 'double', api_key_env: 'PROBE_TEST_KEY', max_retries: 0 },
    },
    analysis: { bootstrap_iterations: 300, block_lines: 5 },
    ...(extra.probe ? { probe: extra.probe } : {}),
  };
  return { config: parseConfig(raw, path.join(dir, 'config.yaml'), { env: {} }), dir };
}
