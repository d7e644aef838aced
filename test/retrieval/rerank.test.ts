import { expect } from 'chai';
import { mkdtempSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CrossEncoderReranker, LexicalReranker, lexicalSimilarity, loadReranker } from '../../src/retrieval/rerank';
import { FIXTURES } from '../helpers/shared-data';
import { crossEncoderDir } from './onnx-fixture';

// Real OCR_GS line (Yacqubi.Tarikh 000010) and its OpenITI source units (JK001493 lines 1381–1382).
const OCR = 'االتاصس اللف، وماأصعر الباب، وأفيق الطريق الي تيلق التاس انجاة..';
const SRC_A = 'لكم أما الباب فإنه معرض والطريق بين وهو يبلغ الناس التلف وما اصغر الباب';
const SRC_B = 'وأضيق الطريق التي تبلغ الناس النجاة';
const OTHER = 'قال الشيخ أبو محمد إن الصبر حصن منيع لأهل المروءة';

describe('retrieval/rerank', () => {
  const tmp: string[] = [];
  after(() => tmp.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('lexical similarity ranks the true source units of a noisy OCR line above an unrelated sentence', async () => {
    const r = new LexicalReranker();
    const [a, b, o] = await r.score(OCR, [SRC_A, SRC_B, OTHER]);
    expect(a).to.be.greaterThan(o + 0.1);
    expect(b).to.be.greaterThan(o + 0.3);
    for (const s of [a, b, o]) expect(s).to.be.within(0, 1);
    expect(lexicalSimilarity(SRC_B, SRC_B)).to.equal(1);
    expect(lexicalSimilarity('', SRC_B)).to.equal(0);
  });

  it('a short candidate that covers little of a long line is penalised (coverage)', () => {
    const long = `${SRC_A} ${SRC_B}`;
    expect(lexicalSimilarity(long, 'يبلغ الناس')).to.be.lessThan(lexicalSimilarity(long, SRC_A));
  });

  it('cross-encoder with no model dir → not loaded, reason recorded (no throw)', async () => {
    const r = await loadReranker({ method: 'cross_encoder', modelDir: null });
    expect(r.reranker).to.equal(null);
    expect(r.status).to.deep.include({ method: 'cross_encoder', active: false });
    expect(r.status.reason).to.match(/no cross-encoder model_dir/);
  });

  it('cross-encoder with a missing or broken model dir → fallback with the reason naming the file', async () => {
    const missing = path.join(os.tmpdir(), 'no-such-cross-encoder-dir');
    const a = await loadReranker({ method: 'cross_encoder', modelDir: missing });
    expect(a.reranker).to.equal(null);
    expect(a.status.reason).to.include(missing);

    const broken = mkdtempSync(path.join(os.tmpdir(), 'xenc-broken-'));
    tmp.push(broken);
    writeFileSync(path.join(broken, 'model.onnx'), 'this is not a protobuf');
    copyFileSync(path.join(FIXTURES, 'retrieval', 'cross-encoder', 'tokenizer.json'), path.join(broken, 'tokenizer.json'));
    const b = await loadReranker({ method: 'cross_encoder', modelDir: broken });
    expect(b.reranker).to.equal(null);
    expect(b.status.reason).to.match(/cannot load ONNX model .*model\.onnx/);

    const noTok = mkdtempSync(path.join(os.tmpdir(), 'xenc-notok-'));
    tmp.push(noTok);
    writeFileSync(path.join(noTok, 'model.onnx'), 'x');
    const c = await loadReranker({ method: 'cross_encoder', modelDir: noTok });
    expect(c.status.reason).to.match(/tokenizer\.json/);
  });

  it('cross-encoder scores pairs with the model: pair template, sigmoid of the logit, longest-first truncation, batching', async () => {
    const dir = crossEncoderDir();
    tmp.push(dir);
    const r = await CrossEncoderReranker.load({ modelDir: dir, maxLength: 16, batchSize: 2 });
    try {
      // [CLS] A [SEP] B [SEP], token types 0… then 1… (the BERT pair template of the fixture tokenizer).
      const enc = r.encodePair('قال الشيخ', 'إن الوفاء نور');
      expect(enc.ids.length).to.equal(2 + 1 + 3 + 1 + 1);
      expect(enc.types).to.deep.equal([0, 0, 0, 0, 1, 1, 1, 1]);
      // The fixture model's logit = passage tokens incl. the final [SEP].
      const scores = await r.score('قال الشيخ', ['خير', 'إن الوفاء نور', 'إن الوفاء نور يهتدى', 'في']);
      const sig = (x: number) => 1 / (1 + Math.exp(-x));
      expect(scores.map((s) => Number(s.toFixed(6)))).to.deep.equal([2, 4, 5, 2].map((x) => Number(sig(x).toFixed(6))));
      const long = 'إن الوفاء نور يهتدى به في الظلمات الكرم مفتاح كل خير الدنيا العلم زينة الرجال المجالس';
      const cut = r.encodePair('قال الشيخ', long);
      expect(cut.ids.length).to.equal(16);
      expect(cut.ids.slice(0, 4)).to.deep.equal(r.encodePair('قال الشيخ', 'خير').ids.slice(0, 4)); // query kept, passage cut first
      const viaLoader = await loadReranker({ method: 'cross_encoder', modelDir: dir, maxLength: 16 });
      expect(viaLoader.status).to.deep.include({ active: true, reason: null });
      expect(viaLoader.reranker!.identity).to.match(/^cross_encoder:[0-9a-f]{64}:max=16$/);
      await viaLoader.reranker!.close();
    } finally {
      await r.close();
    }
  });
});
