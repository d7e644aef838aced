"""Reference embedding pipeline: Hugging Face `tokenizers` (Rust) + Python onnxruntime + numpy pooling.

Mirrors src/embed/embedder.ts (same truncation, length-sorted batches, mean/CLS pooling, L2 norm) so the
TypeScript embedder can be checked for equality and compared for speed.

  python embed_reference.py bench   --model-dir D --sentences S.json --threads 2 --batch-size 32 [--prefix P]
      → {"pipeline_s", "session_s", "tokenize_s"} for one run (after a warm-up)
  python embed_reference.py serve   --model-dir D --threads 2 --batch-size 32 [--prefix P]   (stdin: JSON text arrays)
  python embed_reference.py embed   --model-dir D --sentences S.json --out V.f32 [--prefix P]
  python embed_reference.py tokenize --model-dir D --sentences S.json --max-length N --out ids.json
"""
import argparse, json, os, sys, time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def find_model(model_dir):
    for c in ("model.onnx", os.path.join("onnx", "model.onnx")):
        p = os.path.join(model_dir, c)
        if os.path.exists(p):
            return p
    sys.exit(f"no model.onnx in {model_dir}")


def load_tokenizer(model_dir, max_length):
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length)
    return tok


class Reference:
    def __init__(self, model_dir, threads, max_length, pooling="mean"):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.sess = ort.InferenceSession(find_model(model_dir), so, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.sess.get_inputs()]
        outs = [o.name for o in self.sess.get_outputs()]
        self.output = next((n for n in ("last_hidden_state", "token_embeddings") if n in outs), outs[0])
        self.tok = load_tokenizer(model_dir, max_length)
        self.pooling = pooling

    def tokenize(self, texts):
        return [e.ids for e in self.tok.encode_batch(texts)]

    def batches(self, ids, batch_size):
        order = sorted(range(len(ids)), key=lambda i: (-len(ids[i]), i))
        out = []
        for s in range(0, len(order), batch_size):
            rows = order[s:s + batch_size]
            L = len(ids[rows[0]])
            x = np.zeros((len(rows), L), dtype=np.int64)
            m = np.zeros((len(rows), L), dtype=np.int64)
            for r, i in enumerate(rows):
                x[r, :len(ids[i])] = ids[i]
                m[r, :len(ids[i])] = 1
            feeds = {"input_ids": x}
            if "attention_mask" in self.inputs:
                feeds["attention_mask"] = m
            if "token_type_ids" in self.inputs:
                feeds["token_type_ids"] = np.zeros_like(x)
            out.append((rows, feeds, m))
        return out

    def run(self, feeds):
        return self.sess.run([self.output], feeds)[0]

    def pool(self, h, m):
        if h.ndim == 2:
            v = h
        elif self.pooling == "cls":
            v = h[:, 0]
        else:
            mf = m[:, :, None].astype(np.float32)
            v = (h * mf).sum(1) / np.maximum(mf.sum(1), 1)
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)

    def embed(self, texts, batch_size, timings=None):
        t0 = time.perf_counter()
        ids = self.tokenize(texts)
        if timings is not None:
            timings["tokenize_s"] += time.perf_counter() - t0
        res = None
        for rows, feeds, m in self.batches(ids, batch_size):
            t0 = time.perf_counter()
            h = self.run(feeds)
            if timings is not None:
                timings["session_s"] += time.perf_counter() - t0
            v = self.pool(h, m)
            if res is None:
                res = np.zeros((len(texts), v.shape[1]), dtype=np.float32)
            res[rows] = v
        return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["bench", "serve", "embed", "tokenize"])
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--sentences", help="JSON array of strings (not for serve)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--pooling", default="mean")
    ap.add_argument("--prefix", default="")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.mode == "serve":
        # One request per stdin line: a JSON array of texts; one reply line with the timings of embedding
        # them (lets the caller interleave its own runs with ours under the same machine load).
        ref = Reference(a.model_dir, a.threads, a.max_length, a.pooling)
        ref.embed([a.prefix + "warm up"] * a.batch_size, a.batch_size)
        print(json.dumps({"ready": True, "ort_version": ort.__version__}), flush=True)
        for line in sys.stdin:
            texts = [a.prefix + s for s in json.loads(line)]
            timings = {"tokenize_s": 0.0, "session_s": 0.0}
            t0 = time.perf_counter()
            ref.embed(texts, a.batch_size, timings)
            print(json.dumps({"pipeline_s": time.perf_counter() - t0, **timings}), flush=True)
        return

    texts = [a.prefix + s for s in json.load(open(a.sentences, encoding="utf-8"))]

    if a.mode == "tokenize":
        tok = load_tokenizer(a.model_dir, a.max_length)
        json.dump([e.ids for e in tok.encode_batch(texts)], open(a.out, "w"))
        return

    ref = Reference(a.model_dir, a.threads, a.max_length, a.pooling)
    if a.mode == "embed":
        ref.embed(texts, a.batch_size).astype("<f4").tofile(a.out)
        return

    # bench: one full pipeline run (tokenize + batch + run + pool), with the session and tokenizer time
    # inside it accumulated separately
    ref.embed(texts[: 2 * a.batch_size], a.batch_size)  # warm-up
    timings = {"tokenize_s": 0.0, "session_s": 0.0}
    t0 = time.perf_counter()
    ref.embed(texts, a.batch_size, timings)
    total = time.perf_counter() - t0
    print(json.dumps({"n": len(texts), "pipeline_s": total, **timings, "ort_version": ort.__version__}))


if __name__ == "__main__":
    main()
