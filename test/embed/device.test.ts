import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { cudaUnavailableReason, onnxBindingDir } from '../../src/embed/device';
import { Embedder } from '../../src/embed/embedder';
import { captureLogs } from '../helpers/log-capture';
import { MINILM, requireModel } from './models';

const TEXTS = ['قال أبو عثمان', 'وقال الجاحظ في كتاب الحيوان إن الكلب أشد وفاء من كثير من الناس', 'العلم'];

describe('embed/device: rag.embedding.device "cuda"', function () {
  it('names what is missing when the CUDA provider libraries are not installed, and nothing when they are', function () {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ort-binding-'));
    try {
      if (process.platform !== 'linux' || process.arch !== 'x64') {
        expect(cudaUnavailableReason(dir)).to.match(/no CUDA execution provider/);
        return;
      }
      expect(cudaUnavailableReason(dir)).to.include('libonnxruntime_providers_cuda.so');
      writeFileSync(path.join(dir, 'libonnxruntime_providers_cuda.so'), '');
      expect(cudaUnavailableReason(dir)).to.equal(null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without a usable GPU: the CPU sessions, the same vectors as device "cpu", and exactly one warning', async function () {
    requireModel(this, MINILM);
    if (cudaUnavailableReason() === null) {
      console.log(
        `    (skipped: onnxruntime-node's CUDA libraries are installed in ${onnxBindingDir()}; this test is for machines without them)`,
      );
      this.skip();
    }
    const cpu = await Embedder.load({ modelDir: MINILM.dir, threads: 2, batchSize: 2 });
    const logs = captureLogs();
    let cuda: Embedder | undefined;
    try {
      cuda = await Embedder.load({ modelDir: MINILM.dir, threads: 2, batchSize: 2, device: 'cuda' });
      const a = await cpu.embedPassages(TEXTS);
      const b = await cuda.embedPassages(TEXTS);
      expect(cuda.settings.device).to.equal('cpu');
      expect(cuda.settings.sessions).to.equal(cpu.settings.sessions);
      expect([...b]).to.deep.equal([...a]);
    } finally {
      logs.stop();
      await cuda?.dispose();
      await cpu.dispose();
    }
    const warnings = logs.records().filter((r) => r.level >= 40);
    expect(warnings).to.have.length(1);
    expect(warnings[0].msg).to.match(/device is "cuda" but .*CUDA.* embedding on the CPU instead/);
  });

  it('rejects an unknown device with a one-line error', async function () {
    requireModel(this, MINILM);
    let err: Error | undefined;
    await Embedder.load({ modelDir: MINILM.dir, device: 'tpu' as 'cpu' }).catch((e: Error) => (err = e));
    expect(err?.message).to.equal('embedding device must be "cpu" or "cuda", got tpu');
  });
});
