/** LaTeX for the paper outputs: escaping, numbers with a true minus, and a booktabs table (\toprule, \midrule, \bottomrule). */

export interface TexColumn<R> {
  head: string;
  align: 'l' | 'r';
  cell: (row: R) => string;
  /** The cell is LaTeX already (numbers, \dag); otherwise it is escaped. */
  raw?: boolean;
}

const SPECIAL: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
};

export function texEscape(s: string): string {
  return s.replace(/[\\&%$#_{}~^]/g, (c) => SPECIAL[c]);
}

/** A number with `d` decimals; a negative one with a math minus ($-$), a positive one with "+" when `signed`. */
export function texNum(x: number, d: number, signed = false): string {
  const v = Math.abs(x).toFixed(d);
  if (Number(v) === 0) return (0).toFixed(d);
  return x < 0 ? `$-$${v}` : signed ? `+${v}` : v;
}

/** A table environment with a booktabs tabular; `group`: a row's group, set as an italic line above its first row. */
export function booktabs<R>(
  rows: readonly R[],
  cols: readonly TexColumn<R>[],
  opts: { caption: string; label: string; group?: (row: R) => string },
): string {
  const line = (cells: string[]) => `    ${cells.join(' & ')} \\\\`;
  const body: string[] = [];
  let last: string | null = null;
  for (const r of rows) {
    const g = opts.group?.(r) ?? null;
    if (g !== null && g !== last) {
      if (last !== null) body.push('    \\midrule');
      body.push(`    \\multicolumn{${cols.length}}{l}{\\textit{${texEscape(g)}}} \\\\`);
      last = g;
    }
    body.push(line(cols.map((c) => (c.raw ? c.cell(r) : texEscape(c.cell(r))))));
  }
  return [
    '% Needs \\usepackage{booktabs}.',
    '\\begin{table}[t]',
    '  \\centering',
    '  \\small',
    `  \\begin{tabular}{${cols.map((c) => c.align).join('')}}`,
    '    \\toprule',
    line(cols.map((c) => c.head)),
    '    \\midrule',
    ...body,
    '    \\bottomrule',
    '  \\end{tabular}',
    `  \\caption{${opts.caption}}`,
    `  \\label{${opts.label}}`,
    '\\end{table}',
    '',
  ].join('\n');
}
