/**
 * Agreement of analysis/score/text-metrics.ts with Python jiwer on every OCR_GS line (OCR output vs gold).
 *
 *   npx tsx bench/metrics-vs-jiwer.ts [--ocr-gs DIR] [--python python3]
 *
 * Creates `.bench-venv/` (git-ignored) on first run and installs jiwer from PyPI into it. Texts are brought
 * to scoring form by our code (trim + whitespace collapse, trim only, or + Arabic normalisation) and the
 * same strings go to both implementations, so the check isolates the edit-distance arithmetic. Prints
 * corpus-level CER/WER per book with the absolute difference, per-line edit mismatches, and our timing.
 * Exits 1 when any corpus-level difference exceeds 1e-9 or any per-line distance differs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BUILTIN_PROFILES,
  ErrorRateAccumulator,
  prepareText,
  scoreDistances,
  scorePair,
  type ScoringOptions,
} from '../analysis/score/text-metrics';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const JIWER_VERSION = '4.0.0';
const TOLERANCE = 1e-9;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const ocrGs = arg('--ocr-gs', path.join(process.env.SHARED_DATA ?? path.resolve(REPO, '..', 'shared', 'data'), 'ocr-gs'));
const python = arg('--python', 'python3');
const venv = path.join(REPO, '.bench-venv');
const venvPy = path.join(venv, 'bin', 'python');

function ensureVenv(): void {
  if (!existsSync(venvPy)) {
    console.log(`creating ${venv} …`);
    execFileSync(python, ['-m', 'venv', venv], { stdio: 'inherit' });
  }
  const probe = spawnSync(venvPy, ['-c', `import importlib.metadata as m; assert m.version("jiwer") == "${JIWER_VERSION}"`]);
  if (probe.status !== 0) {
    console.log(`installing jiwer==${JIWER_VERSION} into ${venv} …`);
    execFileSync(venvPy, ['-m', 'pip', 'install', '--quiet', `jiwer==${JIWER_VERSION}`], { stdio: 'inherit' });
  }
}

interface Book {
  name: string;
  refs: string[];
  hyps: string[];
}

function readBooks(): Book[] {
  if (!existsSync(ocrGs)) {
    console.error(`OCR_GS data not found at ${ocrGs} (pass --ocr-gs DIR or set SHARED_DATA)`);
    process.exit(2);
  }
  return readdirSync(ocrGs)
    .filter((d) => existsSync(path.join(ocrGs, d, 'manifest.txt')) || d.startsWith('book_'))
    .sort()
    .map((name) => {
      const dir = path.join(ocrGs, name);
      const refs: string[] = [];
      const hyps: string[] = [];
      for (const f of readdirSync(dir)
        .filter((f) => f.endsWith('.gt.txt'))
        .sort()) {
        const rec = path.join(dir, f.replace(/\.gt\.txt$/, '.png.rec.txt'));
        if (!existsSync(rec)) continue;
        refs.push(readFileSync(path.join(dir, f), 'utf8'));
        hyps.push(readFileSync(rec, 'utf8'));
      }
      return { name, refs, hyps };
    });
}

const variants: Array<{ label: string; opts: ScoringOptions }> = [
  { label: 'collapse', opts: { collapseWhitespace: true } },
  { label: 'trim-only', opts: { collapseWhitespace: false } },
  { label: 'arabic-normalised', opts: { collapseWhitespace: true, profile: BUILTIN_PROFILES.no_diacritics } },
];

ensureVenv();
const books = readBooks();
// Word tokens are maximal non-whitespace runs in every variant (the data has NBSPs, which jiwer would
// not split on), so jiwer gets the collapsed form for WER.
const sets: Record<string, { refs: string[]; hyps: string[]; word_refs: string[]; word_hyps: string[] }> = {};
for (const v of variants) {
  const wordOpts = { ...v.opts, collapseWhitespace: true };
  for (const b of books) {
    sets[`${v.label}|${b.name}`] = {
      refs: b.refs.map((t) => prepareText(t, v.opts)),
      hyps: b.hyps.map((t) => prepareText(t, v.opts)),
      word_refs: b.refs.map((t) => prepareText(t, wordOpts)),
      word_hyps: b.hyps.map((t) => prepareText(t, wordOpts)),
    };
  }
}

const ref = spawnSync(venvPy, [path.join(REPO, 'bench', 'python', 'jiwer_ref.py')], {
  input: JSON.stringify({ sets }),
  maxBuffer: 1 << 28,
  encoding: 'utf8',
});
if (ref.status !== 0) {
  console.error(ref.stderr);
  process.exit(1);
}
const py = JSON.parse(ref.stdout) as {
  jiwer_version: string;
  sets: Record<string, { cer: number; wer: number; line_char_edits: number[]; line_word_edits: number[] }>;
};

console.log(`jiwer ${py.jiwer_version}; OCR_GS at ${ocrGs}; tolerance ${TOLERANCE}`);
let maxDiff = 0;
let lineMismatches = 0;
let totalLines = 0;
let totalMs = 0;
for (const v of variants) {
  console.log(`\n[${v.label}]`);
  console.log(['book'.padEnd(32), 'lines', 'CER ours', 'CER jiwer', '|ΔCER|', 'WER ours', 'WER jiwer', '|ΔWER|', 'line≠'].join('\t'));
  for (const b of books) {
    const key = `${v.label}|${b.name}`;
    const t0 = performance.now();
    const acc = new ErrorRateAccumulator();
    const lineC: number[] = [];
    const lineW: number[] = [];
    for (let k = 0; k < b.refs.length; k++) {
      const p = scorePair(b.refs[k], b.hyps[k], v.opts);
      acc.add(p);
      lineC.push(p.charEdits);
      lineW.push(p.wordEdits);
    }
    totalMs += performance.now() - t0;
    totalLines += b.refs.length;
    const j = py.sets[key];
    const dC = Math.abs((acc.cer.rate ?? 0) - j.cer);
    const dW = Math.abs((acc.wer.rate ?? 0) - j.wer);
    maxDiff = Math.max(maxDiff, dC, dW);
    let mism = 0;
    for (let k = 0; k < lineC.length; k++) if (lineC[k] !== j.line_char_edits[k] || lineW[k] !== j.line_word_edits[k]) mism++;
    // The distance-only fast path (used for the normalised figures) must agree line by line too.
    for (let k = 0; k < lineC.length; k++) {
      const f = scoreDistances(b.refs[k], b.hyps[k], v.opts);
      if (f.charEdits !== j.line_char_edits[k] || f.wordEdits !== j.line_word_edits[k]) mism++;
    }
    lineMismatches += mism;
    console.log(
      [
        b.name.padEnd(32),
        b.refs.length,
        acc.cer.rate!.toFixed(6),
        j.cer.toFixed(6),
        dC.toExponential(2),
        acc.wer.rate!.toFixed(6),
        j.wer.toFixed(6),
        dW.toExponential(2),
        mism,
      ].join('\t'),
    );
  }
}
console.log(`\nmax |Δ| corpus CER/WER: ${maxDiff.toExponential(3)}; per-line distance mismatches: ${lineMismatches}`);
console.log(`ours: ${totalLines} pairs (CER+WER) in ${totalMs.toFixed(0)} ms = ${(totalLines / (totalMs / 1000)).toFixed(0)} pairs/s`);
if (maxDiff > TOLERANCE || lineMismatches > 0) {
  console.error('FAIL: metrics disagree with jiwer');
  process.exit(1);
}
console.log('OK: agrees with jiwer');
