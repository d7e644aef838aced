/**
 * Narration of the project's past in a doc (test/docs/links.test.ts): a phrase that tells what was ("moved from",
 * "no longer", "used to" — not "is used to" —, "formerly", "previously") or a commit named by its hash: a run of 7–40
 * hex digits, letters and digits both, within 40 characters of the word "commit". Hex runs elsewhere (sha256
 * prefixes, fingerprints) are data, not history. Fenced code is not read.
 */
import { proseLines } from './doc-links';

const PHRASE = /\bmoved from\b|\bno longer\b|(?<!\b(?:is|are|be|been|being|was|were|gets?)\s+)\bused to\b|\bformerly\b|\bpreviously\b/gi;
const HEX = /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g;
const COMMIT = /\bcommit(?:s|ted)?\b/i;

/** Each narration of history in a markdown text, as "line N: what". */
export function historyNarration(md: string): string[] {
  const text = proseLines(md).join('\n');
  const lineOf = (at: number) => text.slice(0, at).split('\n').length;
  const phrases = [...text.matchAll(PHRASE)].map((m) => `line ${lineOf(m.index)}: "${m[0]}"`);
  const commits = [...text.matchAll(HEX)]
    .filter((m) => COMMIT.test(text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 40)))
    .map((m) => `line ${lineOf(m.index)}: commit ${m[0]}`);
  return [...phrases, ...commits];
}
