/**
 * Crude OpenITI sentence sampler for embedding/index tests and benchmarks only (the real parser lives in
 * src/openiti/). Takes content lines ("# ..."), strips the common markers, keeps lines with >= 30 Arabic
 * letters. Deterministic: files in sorted order, sentences in file order, de-duplicated.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ARABIC_LETTER = /[\u0621-\u064A]/g;

/** Version files of the corpus (`...-ara1`, optionally with .mARkdown/.completed/.inProgress), sorted. */
export function listOpenitiTextFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/-ara\d+(\.(mARkdown|completed|inProgress))?$/.test(name)) out.push(p);
    }
  };
  walk(path.join(root, 'data'));
  return out;
}

export function cleanOpenitiLine(line: string): string {
  return line
    .replace(/^#\s*/, '')
    .replace(/PageV\d+P\d+/g, ' ')
    .replace(/\bms\d+\b/g, ' ')
    .replace(/@[A-Z]+@\d*/g, ' ')
    .replace(/%~%/g, ' ')
    .replace(/\([a-z]\)|\[[a-z]\]|\(\d+\)/g, ' ')
    .replace(/[~|%#]+/g, ' ')
    .replace(/(^|\s)\d+(?=\s|$)/g, ' ') // verse numbers
    .replace(/\s+/g, ' ')
    .trim();
}

export function arabicLetterCount(s: string): number {
  return s.match(ARABIC_LETTER)?.length ?? 0;
}

/**
 * Up to `max` distinct sentences, taking at most `perFile` from each file (spread over books), each
 * cut to `maxChars` at a word boundary. Near-duplicates (the same opening 40 Arabic letters, as when two
 * versions of a book differ only in punctuation) are dropped, so "the source sentence" is well defined.
 */
export function sampleOpenitiSentences(root: string, max: number, opts: { perFile?: number; maxChars?: number } = {}): string[] {
  const perFile = opts.perFile ?? Math.max(20, Math.ceil(max / 50));
  const maxChars = opts.maxChars ?? 300;
  const seen = new Set<string>();
  const out: string[] = [];
  for (const file of listOpenitiTextFiles(root)) {
    let taken = 0;
    for (const raw of readFileSync(file, 'utf8').split('\n')) {
      if (!raw.startsWith('# ') || raw.startsWith('#META#')) continue;
      let s = cleanOpenitiLine(raw);
      if (s.length > maxChars) s = s.slice(0, s.lastIndexOf(' ', maxChars) > 0 ? s.lastIndexOf(' ', maxChars) : maxChars);
      const key = (s.match(ARABIC_LETTER) ?? []).slice(0, 40).join('');
      if (key.length < 30 || seen.has(key)) continue;
      seen.add(key);
      out.push(s);
      if (out.length >= max) return out;
      if (++taken >= perFile) break;
    }
  }
  return out;
}
