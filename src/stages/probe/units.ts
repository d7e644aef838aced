/** The probe texts of one dataset: gold lines (or windows of consecutive lines within a cluster) cut at the word nearest the middle. */
import type { OcrSample } from '../../datasets/types';
import { clusterIds, type ClusterSpec } from '../../datasets/clusters';
import { canonical } from '../../text/canonical';
import { shuffleWords } from './shuffle';
import type { ProbeKind, ProbeUnit } from './types';

/** Cut a text into prompt and rest at the space nearest its middle (a text without a space: at the middle character). */
export function splitHalf(text: string): { prompt: string; rest: string } {
  const chars = [...text];
  const mid = Math.floor(chars.length / 2);
  let best = -1;
  chars.forEach((c, i) => {
    if (c === ' ' && i > 0 && (best < 0 || Math.abs(i - mid) < Math.abs(best - mid))) best = i;
  });
  if (best < 0) return { prompt: chars.slice(0, mid).join(''), rest: chars.slice(mid).join('') };
  return { prompt: chars.slice(0, best).join(''), rest: chars.slice(best + 1).join('') };
}

interface Window {
  ids: string[];
  cluster: number;
  lines: string[];
}

/** Runs of `size` consecutive lines that stay within one cluster (a cluster's last run may be shorter). */
function windows(samples: readonly OcrSample[], size: number, clusters: ClusterSpec, dataset: string): Window[] {
  const { ids } = clusterIds(
    samples.map((s) => s.sample_id),
    clusters,
    dataset,
  );
  const out: Window[] = [];
  samples.forEach((s, i) => {
    const last = out[out.length - 1];
    const line = canonical(s.gt_text);
    if (last && last.cluster === ids[i] && last.ids.length < size) {
      last.ids.push(s.sample_id);
      last.lines.push(line);
    } else out.push({ ids: [s.sample_id], cluster: ids[i], lines: [line] });
  });
  return out;
}

export interface UnitOptions {
  windowLines: number;
  clusters: ClusterSpec;
  shuffleSeed: number;
  /** The dataset is the unpublished control: its units are `control`, with no shuffled copy. */
  control: boolean;
}

/** The dataset's probe texts: `book` and `shuffled` units (or `control` units); `tooShort` counts texts under 2 characters, left out. */
export function probeUnits(dataset: string, samples: readonly OcrSample[], o: UnitOptions): { units: ProbeUnit[]; tooShort: number } {
  const out: ProbeUnit[] = [];
  let tooShort = 0;
  for (const w of windows(samples, o.windowLines, o.clusters, dataset)) {
    const base = { dataset, unit_id: w.ids[0], sample_ids: w.ids, cluster: w.cluster };
    const text = canonical(w.lines.join(' '));
    if ([...text].length < 2) {
      tooShort++;
      continue;
    }
    const kinds: ProbeKind[] = o.control ? ['control'] : ['book', 'shuffled'];
    for (const kind of kinds) {
      const t = kind === 'shuffled' ? w.lines.map((l, i) => shuffleWords(l, o.shuffleSeed, w.ids[i])).join(' ') : text;
      out.push({ ...base, kind, text: t, ...splitHalf(t) });
    }
  }
  return { units: out, tooShort };
}
