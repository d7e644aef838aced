/** Blocks rendered as report.md (charts linked as charts/<name>.png). */
import type { Block } from './blocks';

const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function toMarkdown(blocks: Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.only === 'html') continue;
    switch (b.kind) {
      case 'h1':
        out.push(`# ${b.text}`, '');
        break;
      case 'h2':
        out.push(`## ${b.text}`, '');
        break;
      case 'h3':
        out.push(`### ${b.text}`, '');
        break;
      case 'p':
        out.push(b.text, '');
        break;
      case 'list':
        out.push(...b.items.map((i) => `- ${i}`), '');
        break;
      case 'table': {
        out.push(`| ${b.head.map(mdCell).join(' | ')} |`);
        out.push(`|${b.head.map((_, i) => (b.align?.[i] === 'r' ? '---:' : '---')).join('|')}|`);
        for (const r of b.rows) out.push(`| ${r.map(mdCell).join(' | ')} |`);
        out.push('');
        break;
      }
      case 'chart':
        out.push(`![${b.chart.title}](charts/${b.chart.name}.png)`, '');
        break;
      case 'lines':
        out.push(
          '## Lines',
          '',
          `Every one of the ${b.doc.meta.num_lines} lines, with each arm's output diffed against gold and the retrieved sentences, is in the Lines view of report.html (lines.json holds the same data).`,
          '',
        );
        break;
    }
  }
  return out.join('\n');
}
