/**
 * A list of per-line problems told in a few words: grouped by kind, each kind with its count, the lines it
 * covers as ranges and its first example, the whole under a length cap —
 * `2,048 lines lack model (lines 1–2,048; e.g. line 1) — add it`. A user reading a rejected file needs which
 * fields, how many lines, where, and what to do; not the same message repeated for every line.
 */

export interface LineProblem {
  /** 1-based line number in the file. */
  line: number;
  /** What is wrong, the same words for every line it applies to: `lack model`, `duplicate sample_id`. */
  kind: string;
  /** This line's particulars, shown for the first example: `"s12" (first at line 3)`. */
  detail?: string;
}

const count = (n: number) => n.toLocaleString('en-US');

/** The kind's verb for one line: `are not` → `is not`, `have` → `has`, `lack` → `lacks`. */
function singular(kind: string): string {
  const [verb, ...rest] = kind.split(' ');
  const one = verb === 'are' ? 'is' : verb === 'have' ? 'has' : /^[a-z]+$/.test(verb) && !verb.endsWith('s') ? `${verb}s` : verb;
  return [one, ...rest].join(' ');
}

/** `1–2,048, 2,050, 2,052–2,060, …` for sorted line numbers, at most `maxRanges` ranges. */
export function lineRanges(lines: readonly number[], maxRanges = 3): string {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length && ranges.length <= maxRanges;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    ranges.push(j === i ? count(sorted[i]) : `${count(sorted[i])}–${count(sorted[j])}`);
    i = j + 1;
  }
  return ranges.length > maxRanges ? `${ranges.slice(0, maxRanges).join(', ')}, …` : ranges.join(', ');
}

/** Problems grouped by kind, largest group first (ties: the kind met first in the file). */
export function groupProblems(problems: readonly LineProblem[]): { kind: string; lines: number[]; first: LineProblem }[] {
  const groups = new Map<string, { kind: string; lines: number[]; first: LineProblem }>();
  for (const p of [...problems].sort((a, b) => a.line - b.line)) {
    const g = groups.get(p.kind);
    if (g) g.lines.push(p.line);
    else groups.set(p.kind, { kind: p.kind, lines: [p.line], first: p });
  }
  return [...groups.values()].sort((a, b) => b.lines.length - a.lines.length);
}

/**
 * One sentence per kind, joined with `; `, cut to `maxChars` (the kinds left out are counted):
 * `2,048 lines lack model (lines 1–2,048; e.g. line 1) — add it`. Kinds are worded for several lines (`lack model`,
 * `are not valid JSON`); one line gets the singular verb. `fix(kind)` gives the fix, when there is one.
 */
export function summarizeLineProblems(
  problems: readonly LineProblem[],
  opts: { maxChars?: number; fix?: (kind: string) => string | undefined } = {},
): string {
  const max = opts.maxChars ?? 500;
  const parts = groupProblems(problems).map((g) => {
    const n = g.lines.length;
    const where = n === 1 ? `line ${count(g.first.line)}` : `lines ${lineRanges(g.lines)}; e.g. line ${count(g.first.line)}`;
    const detail = g.first.detail ? `: ${g.first.detail.length > 80 ? `${g.first.detail.slice(0, 79)}…` : g.first.detail}` : '';
    const fix = opts.fix?.(g.kind);
    return `${count(n)} line${n === 1 ? '' : 's'} ${n === 1 ? singular(g.kind) : g.kind} (${where}${detail})${fix ? ` — ${fix}` : ''}`;
  });
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const rest = parts.length - i - 1;
    const more = rest > 0 ? `; and ${rest} more kind${rest === 1 ? '' : 's'} of problem` : '';
    const next = out ? `${out}; ${parts[i]}` : parts[i];
    if (next.length + more.length > max && out)
      return `${out}; and ${parts.length - i} more kind${parts.length - i === 1 ? '' : 's'} of problem`;
    out = next.length > max ? `${next.slice(0, max - 1)}…` : next;
  }
  return out;
}
