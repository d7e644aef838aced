/** A corrections file resumed under another prompt version is refused: its lines would be skipped as done. */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCorrections } from '../../src/llm/runner';
import type { LlmBackend } from '../../src/llm/types';
import { resolveTemplate } from '../../src/prompts/templates';

const echo: LlmBackend = {
  id: 'echo',
  model: 'echo',
  concurrency: 1,
  async complete(messages) {
    return { text: messages[messages.length - 1].content, promptTokens: 1, completionTokens: 1, latencyMs: 0, attempts: 1 };
  },
  async close() {},
};
const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    sample_id: `s${i}`,
    dataset: 'd',
    ocr_text: `نص ${i}`,
    gt_text: `نص ${i}`,
    retrieval_context: 'سياق',
  }));
const template = (version: string) => resolveTemplate('t', { t: { version, system: 'صحح {retrieval_context}' } })!;

describe('llm/runner: one prompt per corrections file', () => {
  it('resumes under the same template version, refuses another', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'prompt-resume-'));
    try {
      const outputPath = path.join(dir, 'corrections.jsonl');
      const run = (version: string, n: number) =>
        runCorrections({
          inputPath: rows(n),
          outputPath,
          backend: echo,
          prompt: 'rag',
          template: template(version),
          progress: 'silent',
        });
      await run('t1', 2);
      expect((await run('t1', 3)).written).to.equal(1);
      await run('t2', 4).then(
        () => expect.fail('a new prompt version must not resume the old file'),
        (e: Error) =>
          expect(e.message).to.match(/corrections\.jsonl:1: existing output was written with prompt version "t1", this run sends "t2"/),
      );
      expect(readFileSync(outputPath, 'utf8').trim().split('\n')).to.have.length(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
