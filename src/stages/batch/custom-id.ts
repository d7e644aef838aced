/**
 * The `custom_id` of one batch request: `<study>|<arm>|<replicate>|<dataset>|<sample_id>`, each part
 * percent-encoded (encodeURIComponent), so `|` never occurs inside a part. `study` is the first 12 hex digits of
 * the sha256 of the study's results folder and run name (./batch-manifest.ts): a line of another study says so.
 */
export interface CustomIdParts {
  study: string;
  arm: string;
  replicate: number;
  dataset: string;
  sampleId: string;
}

export function formatCustomId(p: CustomIdParts): string {
  return [p.study, p.arm, String(p.replicate), p.dataset, p.sampleId].map(encodeURIComponent).join('|');
}

/** The parts of a custom_id, or null when it is not one this tool writes. */
export function parseCustomId(id: string): CustomIdParts | null {
  const parts = id.split('|');
  if (parts.length !== 5) return null;
  let decoded: string[];
  try {
    decoded = parts.map(decodeURIComponent);
  } catch {
    return null;
  }
  const [study, arm, r, dataset, sampleId] = decoded;
  if (!/^[0-9a-f]{12}$/.test(study) || !/^\d+$/.test(r) || !arm || !sampleId) return null;
  return { study, arm, replicate: Number(r), dataset, sampleId };
}
