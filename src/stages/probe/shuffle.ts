/** The shuffled control: a line's words in a seeded random order (the same seed and line give the same order). */
import { createHash } from 'node:crypto';
import { mulberry32 } from '../../util/random';

function lineSeed(seed: number, id: string): number {
  return createHash('sha256').update(`${seed}\0${id}`).digest().readUInt32LE(0);
}

/**
 * The words of `text` (split on spaces) in a Fisher–Yates order seeded by `seed` and `id`. A line of two or more
 * distinct words never comes back in its own order (the draw is repeated with the next seed, at most 16 times).
 */
export function shuffleWords(text: string, seed: number, id: string): string {
  const words = text.split(' ').filter((w) => w.length > 0);
  if (new Set(words).size < 2) return words.join(' ');
  for (let attempt = 0; attempt < 16; attempt++) {
    const rand = mulberry32(lineSeed(seed + attempt, id));
    const out = [...words];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    const joined = out.join(' ');
    if (joined !== words.join(' ')) return joined;
  }
  return [...words.slice(1), words[0]].join(' ');
}
