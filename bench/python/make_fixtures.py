"""Regenerate the reference fixtures of test/embed from the Rust tokenizers + Python onnxruntime.

  .bench-venv/bin/python bench/python/make_fixtures.py   (run from the repository root; see bench/embed.ts
  for how the venv is made)
Writes test/fixtures/embed/reference-<model>.json for every model dir present under models/.
"""
import json, os, sys

sys.path.insert(0, os.path.dirname(__file__))
from embed_reference import Reference, load_tokenizer, find_model  # noqa: E402

MODELS = {
    # dir: (max_length, query prefix, passage prefix)
    "all-MiniLM-L6-v2": (256, "", ""),
    "multilingual-e5-small": (512, "query: ", "passage: "),
}
CASES = "test/fixtures/embed/tokenizer-cases.json"
cases = json.load(open(CASES, encoding="utf-8"))
for name, (max_len, qp, pp) in MODELS.items():
    d = os.path.join("models", name)
    if not os.path.exists(os.path.join(d, "tokenizer.json")):
        continue
    out = {"model": name, "max_length": max_len, "cases": CASES, "passage_prefix": pp}
    tok = load_tokenizer(d, max_len)
    out["ids"] = [e.ids for e in tok.encode_batch(cases)]
    tok.enable_truncation(32)
    out["ids_max32"] = [e.ids for e in tok.encode_batch(cases)]
    try:
        find_model(d)
        has_model = True
    except SystemExit:
        has_model = False
    if has_model:
        ref = Reference(d, 2, max_len)
        texts = [pp + c for c in cases[:8]]
        out["embeddings"] = [[round(float(x), 7) for x in row] for row in ref.embed(texts, 4)]
    path = f"test/fixtures/embed/reference-{name}.json"
    json.dump(out, open(path, "w"))
    print("wrote", path, "embeddings" in out)
