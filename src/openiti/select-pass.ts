/** Pass 2 of a build: draw each file's allotted sentences and write corpus.jsonl atomically. */
import { hash } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import { JsonlAppender } from '../io/jsonl';
import { createProgress, type Progress } from '../util/progress';
import { CorpusBuildError } from './build-options';
import type { CorpusSentence } from './corpus-file';
import { Digest64Set } from './digest-set';
import type { EraPlan } from './era-plan';
import { classifyReadError, type FileEntry } from './file-selection';
import type { PassContext } from './pass-context';
import { linePriority, seededKey, TopK, type Candidate } from './sampling';
import { dedupKey, scanEligible } from './scan-eligible';

export interface WriteResult {
  written: number;
  /** Files that contributed at least one sentence. */
  contributing: number;
}

/** Numbers the records of pass 2 and remembers their dedup digests. */
class CorpusSink {
  readonly seenAcross = new Digest64Set();
  readonly result: WriteResult = { written: 0, contributing: 0 };

  constructor(
    private readonly writer: JsonlAppender,
    private readonly dedupAcrossCorpus: boolean,
  ) {}

  writeFile(f: FileEntry, chosen: readonly Candidate[]): void {
    for (const c of chosen) {
      const rec: CorpusSentence = { text: c.text, source_uri: f.uri, date: f.date, char_len: c.charLen, idx: this.result.written++ };
      this.writer.write(rec);
      if (this.dedupAcrossCorpus) this.seenAcross.add(c.dh ?? 0, c.dl ?? 0);
    }
    if (chosen.length > 0) this.result.contributing++;
  }
}

/** Pass 2: select and write to `<outPath>.tmp-<pid>`, renamed into place only when complete. */
export async function writeCorpus(plans: EraPlan[], ctx: PassContext): Promise<WriteResult> {
  const { o } = ctx;
  const tmp = `${o.outPath}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  const writer = new JsonlAppender(tmp);
  let writerOpen = true;
  const sink = new CorpusSink(writer, o.dedupAcrossCorpus);
  const selectBytes = plans.reduce((a, p) => p.files.reduce((b, f) => (f.capacity > 0 ? b + f.bytes : b), a), 0);
  const progress = createProgress({ label: 'openiti: select', total: selectBytes, mode: o.progressMode });
  try {
    await selectEras(plans, ctx, sink, progress, selectBytes);
    writerOpen = false;
    writer.close();
  } catch (err) {
    try {
      if (writerOpen) writer.close();
    } finally {
      rmSync(tmp, { force: true });
    }
    throw err;
  } finally {
    progress.stop();
  }
  if (sink.result.written === 0) {
    rmSync(tmp, { force: true });
    throw new CorpusBuildError(
      `no sentences written (all ${ctx.sentences.eligible} eligible sentences were dropped as duplicates or their files became unreadable)`,
    );
  }
  renameSync(tmp, o.outPath);
  return sink.result;
}

/** Pass 2's loop over each era's files in output order, drawing from those with sentences allotted. */
async function selectEras(plans: EraPlan[], ctx: PassContext, sink: CorpusSink, progress: Progress, selectBytes: number): Promise<void> {
  let done = 0;
  for (const plan of plans) {
    let carry = 0; // sentences lost to cross-corpus dedup, made up by later files of the era
    for (const f of plan.files) {
      ctx.o.signal?.throwIfAborted();
      const want = f.alloc + Math.min(carry, f.capacity - f.alloc);
      if (want > 0) {
        const chosen = await drawFromFile(f, want, ctx, sink.seenAcross);
        sink.writeFile(f, chosen);
        plan.written += chosen.length;
        carry += f.alloc - chosen.length;
      }
      if (f.capacity > 0) {
        done += f.bytes;
        progress.update(done);
        ctx.onProgress?.(done, selectBytes, 'select');
      }
    }
    if (carry > 0) ctx.sentences.unfilledAfterDedup += carry;
  }
}

/**
 * Up to `want` sentences of one file, in file order: those with the lowest seeded priorities, or all of
 * them without a draw when `want` covers the file; a sentence already written from another file is dropped.
 */
async function drawFromFile(f: FileEntry, want: number, ctx: PassContext, seenAcross: Digest64Set): Promise<Candidate[]> {
  const { o, sentences } = ctx;
  const fileKey = seededKey(o.seed, f.uri);
  // Taking every eligible sentence needs no draw; otherwise keep the `want` lowest priorities.
  const takeAll = want >= f.eligible;
  const all: Candidate[] = [];
  const top = new TopK(takeAll ? 0 : want);
  try {
    await scanEligible(f.file, ctx.filter, (line) => {
      const i = line.index;
      const pr = takeAll ? 0 : linePriority(fileKey, i);
      if (!takeAll && !top.wouldAccept(pr, i)) return; // most lines stop here: no string, no hashing
      const text = line.text();
      let dh = 0;
      let dl = 0;
      if (o.dedupAcrossCorpus) {
        const d = hash('sha256', line.hasMarks ? dedupKey(text) : text, 'buffer');
        dh = d.readUInt32LE(0);
        dl = d.readUInt32LE(4);
        if (seenAcross.has(dh, dl)) {
          sentences.duplicateAcrossCorpus++;
          return;
        }
      }
      const c: Candidate = { priority: pr, index: i, text, charLen: line.charLen, dh, dl };
      if (takeAll) all.push(c);
      else top.offer(c);
    });
  } catch (err) {
    const { reason, detail } = classifyReadError(err);
    ctx.problems.skip(reason, f.file, `${detail} (changed between passes)`);
  }
  return takeAll ? all : top.inFileOrder();
}
