import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { Embedder, sessionLayout } from '../../src/embed/embedder';
import { buildFeeds, poolHidden } from '../../src/embed/feeds';
import { REPO_ROOT } from '../helpers/shared-data';
import { MINILM, requireModel } from './models';

const TEXTS = [
  'قال أبو العباس حدثنا محمد بن يزيد عن الأصمعي',
  'وكان الخليفة يجلس للناس في كل يوم جمعة',
  'ذكر ما كان من الأمور في السنة الثالثة',
  'وفي هذه السنة مات جماعة من العلماء والفقهاء بالبصرة والكوفة',
  'باب',
  'حدثنا',
  'قال الشاعر في وصف الليل الطويل وما فيه من الهموم',
];

describe('embed/session-pool: sessions in worker threads', function () {
  describe('sessionLayout', () => {
    it('auto: one single-threaded session per thread for a small model', () => {
      expect(sessionLayout(2, 'auto', 70e6)).to.deep.equal({ sessions: 2, threadsPerSession: 1 });
      expect(sessionLayout(4, 'auto', 70e6)).to.deep.equal({ sessions: 4, threadsPerSession: 1 });
    });

    it('auto: one session with every thread for a large model (no copy per thread)', () => {
      expect(sessionLayout(4, 'auto', 2e9)).to.deep.equal({ sessions: 1, threadsPerSession: 4 });
    });

    it('an explicit count splits the threads evenly and never exceeds them', () => {
      expect(sessionLayout(4, 2, 70e6)).to.deep.equal({ sessions: 2, threadsPerSession: 2 });
      expect(sessionLayout(2, 8, 70e6)).to.deep.equal({ sessions: 2, threadsPerSession: 1 });
      expect(sessionLayout(3, 2, 70e6)).to.deep.equal({ sessions: 2, threadsPerSession: 1 });
    });
  });

  describe('feeds and pooling (pure)', () => {
    it('builds int64 and int32 feeds with the mask, and token_type_ids only when declared', () => {
      const ids = Int32Array.from([5, 6, 7, 8, 0, 0]);
      const mask = Uint8Array.from([1, 1, 1, 1, 0, 0]);
      const f64 = buildFeeds(ids, mask, 2, 3, ['input_ids', 'attention_mask'], 'int64');
      expect(Object.keys(f64).sort()).to.deep.equal(['attention_mask', 'input_ids']);
      expect([...(f64.input_ids.data as BigInt64Array)].map(Number)).to.deep.equal([5, 6, 7, 8, 0, 0]);
      expect([...(f64.attention_mask.data as BigInt64Array)].map(Number)).to.deep.equal([1, 1, 1, 1, 0, 0]);
      expect(f64.input_ids.dims).to.deep.equal([2, 3]);
      const f32 = buildFeeds(ids, mask, 2, 3, ['input_ids', 'token_type_ids'], 'int32');
      expect(Object.keys(f32).sort()).to.deep.equal(['input_ids', 'token_type_ids']);
      expect([...(f32.token_type_ids.data as Int32Array)]).to.deep.equal([0, 0, 0, 0, 0, 0]);
    });

    it('mean pooling ignores padded positions; cls takes the first token', () => {
      // n = 2, L = 2, d = 2: row 0 has two tokens, row 1 one token plus padding.
      const h = Float32Array.from([1, 2, 3, 4, /* row 1 */ 10, 20, 99, 99]);
      const mask = Uint8Array.from([1, 1, 1, 0]);
      expect([...poolHidden(h, 2, 2, mask, 'mean', false, 3)]).to.deep.equal([2, 3, 10, 20]);
      expect([...poolHidden(h, 2, 2, mask, 'cls', false, 3)]).to.deep.equal([1, 2, 10, 20]);
      const unit = poolHidden(Float32Array.from([3, 4]), 1, 1, Uint8Array.from([1]), 'mean', true, 2);
      expect([...unit].map((x) => +x.toFixed(6))).to.deep.equal([0.6, 0.8]);
    });
  });

  describe('with a real model (MiniLM)', function () {
    before(function () {
      requireModel(this, MINILM);
    });

    it('parallel sessions give the same vectors as one session (any batch may land on any session)', async () => {
      const one = await Embedder.load({ modelDir: MINILM.dir, threads: 2, sessions: 1, batchSize: 2 });
      const two = await Embedder.load({ modelDir: MINILM.dir, threads: 2, sessions: 2, batchSize: 2 });
      try {
        expect(one.settings).to.include({ sessions: 1, threadsPerSession: 2 });
        expect(two.settings).to.include({ sessions: 2, threadsPerSession: 1 });
        const a = await one.embedPassages(TEXTS);
        const b = await two.embedPassages(TEXTS);
        expect(b.length).to.equal(TEXTS.length * one.dims);
        let max = 0;
        for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
        expect(max).to.be.below(1e-5);
      } finally {
        await one.dispose();
        await two.dispose();
      }
    });

    it('reports progress for every batch, in order, ending at the total', async () => {
      const emb = await Embedder.load({ modelDir: MINILM.dir, threads: 2, sessions: 2, batchSize: 2 });
      try {
        const seen: number[] = [];
        await emb.embedPassages(TEXTS, { onProgress: (done, total) => (expect(total).to.equal(TEXTS.length), seen.push(done)) });
        expect(seen).to.have.length(Math.ceil(TEXTS.length / 2));
        expect(seen.at(-1)).to.equal(TEXTS.length);
        expect([...seen].sort((x, y) => x - y)).to.deep.equal(seen);
      } finally {
        await emb.dispose();
      }
    });

    it("a batch the model rejects fails with onnxruntime's reason, and the sessions keep working", async () => {
      const emb = await Embedder.load({ modelDir: MINILM.dir, threads: 2, sessions: 2 });
      try {
        // A token id far beyond the vocabulary: the embedding Gather rejects it.
        const bad = { rows: [0], ids: Int32Array.from([101, 50_000_000, 102]), mask: Uint8Array.from([1, 1, 1]), seqLen: 3 };
        let err: Error | undefined;
        await emb.runBatch(bad).catch((e: Error) => (err = e));
        expect(err?.message).to.match(/^onnxruntime run failed: .*(out of|bound|range|indices)/i);
        expect((await emb.embedPassages([TEXTS[0]])).length).to.equal(emb.dims);
      } finally {
        await emb.dispose();
      }
    });

    it('after dispose, embedding fails with a clear message', async () => {
      const emb = await Embedder.load({ modelDir: MINILM.dir, threads: 1 });
      await emb.dispose();
      await emb.dispose(); // idempotent
      let err: Error | undefined;
      await emb.embedPassages([TEXTS[0]]).catch((e: Error) => (err = e));
      expect(err?.message).to.match(/closed/);
    });

    it('an idle embedder does not keep the process alive (a CLI command that forgets dispose still exits)', function () {
      this.timeout(60_000);
      const script = [
        `import { Embedder } from ${JSON.stringify(path.join(REPO_ROOT, 'src/embed/embedder.ts'))};`,
        `const e = await Embedder.load({ modelDir: ${JSON.stringify(MINILM.dir)}, threads: 2, sessions: 2 });`,
        `const v = await e.embedPassages(['قال أبو العباس حدثنا محمد بن يزيد']);`,
        `console.log('dims', v.length);`,
      ].join('\n');
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 45_000,
      });
      expect(r.error, 'the process did not exit on its own').to.equal(undefined);
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stdout).to.match(/dims 384/);
    });
  });
});
