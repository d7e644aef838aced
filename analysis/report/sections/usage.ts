/**
 * Two tables of the report's Arms section: the replicates of the arms that have them (each replicate's CER and
 * seed, the mean the arm's figures use, the between-replicate SD; docs/statistics.md#replicates), and per arm
 * the tokens, answer latency and cost of its run over every replicate (arms.json `usage`).
 */
import type { ArmsAnalysis } from '../../study/arms';
import { dash, pctF, type Block } from '../blocks';

const count = (x: number) => x.toLocaleString('en-US');
const msF = (x: number | null) => (x === null ? dash : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);
const costF = (x: number | null) => (x === null ? dash : x >= 1 ? x.toFixed(2) : x.toPrecision(2));

export function replicateBlocks(a: ArmsAnalysis): Block[] {
  const arms = a.arms.filter((r) => r.replicates);
  if (arms.length === 0) return [];
  const rows = arms.map((r) => {
    const rep = r.replicates!;
    return [
      r.name,
      String(rep.n),
      rep.seeds.map((s) => s ?? dash).join(', '),
      rep.cer.map((x) => pctF(x)).join(', '),
      pctF(r.cer),
      pctF(rep.cer_sd, 3),
    ];
  });
  return [
    { kind: 'h3', text: 'Replicates (all datasets)' },
    {
      kind: 'p',
      text:
        'An arm with replicates ran every line once per replicate, replicate r with the seed base + r. Its CER is the mean of ' +
        "the replicates' CERs; its CI resamples clusters of lines and replicates; its contrasts compare replicate means. " +
        'A replicate is not an arm: it adds no contrast to the Holm family.',
    },
    {
      kind: 'table',
      head: ['Arm', 'Replicates', 'Seeds', 'CER per replicate', 'Mean CER', 'Between-replicate SD'],
      rows,
      align: ['l', 'r', 'l', 'l', 'r', 'r'],
    },
  ];
}

export function usageBlocks(a: ArmsAnalysis): Block[] {
  if (!a.arms.some((r) => r.usage)) return [];
  const priced = a.arms.some((r) => r.usage?.price);
  const rows = a.arms
    .filter((r) => r.usage)
    .map((r) => {
      const u = r.usage;
      return [
        r.name,
        count(u.records),
        count(u.prompt_tokens),
        count(u.completion_tokens),
        u.records > 0 ? ((u.prompt_tokens + u.completion_tokens) / u.records).toFixed(1) : dash,
        msF(u.latency_ms.median),
        msF(u.latency_ms.p95),
        ...(priced ? [costF(u.cost)] : []),
        u.prompt_prefix_share === null ? dash : `${(u.prompt_prefix_share * 100).toFixed(1)} %`,
      ];
    });
  const head = ['Arm', 'Records', 'Prompt tokens', 'Completion tokens', 'Tokens / record', 'Latency median', 'Latency p95'];
  return [
    { kind: 'h3', text: 'Tokens, latency and cost (all replicates)' },
    {
      kind: 'table',
      head: [...head, ...(priced ? ['Cost (infer.price)'] : []), 'Shared prompt prefix'],
      rows,
      align: ['l', ...head.slice(1).map(() => 'r' as const), ...(priced ? ['r' as const] : []), 'r'],
    },
  ];
}
