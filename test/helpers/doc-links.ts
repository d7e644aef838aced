/**
 * The docs' links as GitHub reads them (test/docs/links.test.ts): the anchors a markdown file's headings make, its
 * relative links, the `docs/<file>.md#anchor` references in code, and each one that leads nowhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The lines of a markdown text with fenced code blanked (line numbers kept), so only prose is read. */
export function proseLines(md: string): string[] {
  let fence = '';
  return md.split('\n').map((line) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (open && (!fence || (open[0] === fence[0] && open.length >= fence.length))) {
      fence = fence ? '' : open;
      return '';
    }
    return fence ? '' : line;
  });
}

/** GitHub's anchor of a heading: lowercase, links to their text, punctuation but '-' and '_' dropped, spaces → '-'. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a markdown text: its headings' slugs, a repeated one suffixed -1, -2, … as GitHub does. */
export function anchors(md: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(md)) {
    const text = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (text === undefined) continue;
    const base = slug(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The targets of a markdown text's links and images outside code, with their line numbers. */
export function links(md: string): { line: number; target: string }[] {
  return proseLines(md).flatMap((line, i) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({
      line: i + 1,
      target: m[1],
    })),
  );
}

/** Why a link from `fromFile` leads nowhere (a missing file or anchor), or null; URLs with a scheme are not followed. */
export function brokenLink(fromFile: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null;
  const [rel, anchor] = target.split('#', 2);
  const file = rel ? path.resolve(path.dirname(fromFile), decodeURIComponent(rel)) : fromFile;
  if (!existsSync(file)) return `no file ${rel}`;
  if (anchor === undefined || !file.endsWith('.md')) return null;
  return anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor)) ? null : `no anchor #${anchor} in ${rel || 'this file'}`;
}

/** The `docs/<file>.md` and `docs/<file>.md#anchor` references in a source text, not part of a longer path. */
export function docRefs(source: string): string[] {
  return [...source.matchAll(/(?<![\w./-])docs\/[\w.-]+\.md(?:#[\w-]+)?/g)].map((m) => m[0]);
}
