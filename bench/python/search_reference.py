"""faiss-cpu IndexFlatIP reference for bench/search.ts: exact top-k over raw float32 files."""
import argparse, json, time

import faiss
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--corpus", required=True)
ap.add_argument("--queries", required=True)
ap.add_argument("--dims", type=int, default=384)
ap.add_argument("--k", type=int, default=3)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--out-keys")
a = ap.parse_args()
faiss.omp_set_num_threads(a.threads)
x = np.fromfile(a.corpus, dtype="<f4").reshape(-1, a.dims)
q = np.fromfile(a.queries, dtype="<f4").reshape(-1, a.dims)
index = faiss.IndexFlatIP(a.dims)
index.add(x)
index.search(q[:256], a.k)  # warm-up
times = []
for _ in range(a.rounds):
    t0 = time.perf_counter()
    _, keys = index.search(q, a.k)
    times.append(time.perf_counter() - t0)
if a.out_keys:
    keys.astype("<i8").tofile(a.out_keys)
print(json.dumps({"best_s": min(times), "median_s": sorted(times)[len(times) // 2], "faiss_version": faiss.__version__}))
