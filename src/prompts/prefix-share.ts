/**
 * How much of an arm's prompts a server's automatic prefix cache could reuse (docs/prompts.md#prefix-share):
 * each prompt, as the characters of its messages in order, shares with the prompts sent before it at most its
 * longest common prefix with one of them; the share is the sum of those prefixes over the sum of the prompts'
 * lengths. Characters, not tokens (a tokenizer-free figure that orders prompts the same way).
 */
import type { ChatMessage } from './builder';

/** The characters a server sees, in order: each message's role, then its content. */
export function promptText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `<${m.role}>${m.content}`).join('');
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Share (0–1) of the prompts' characters that are a prefix of an earlier prompt; null for no prompts. */
export function prefixShare(prompts: readonly string[]): number | null {
  let total = 0;
  let shared = 0;
  prompts.forEach((p, i) => {
    total += p.length;
    let best = 0;
    for (let j = 0; j < i && best < p.length; j++) best = Math.max(best, commonPrefix(p, prompts[j]));
    shared += best;
  });
  return total === 0 ? null : Math.round((shared / total) * 10_000) / 10_000;
}
