/**
 * All text in a history (or any proto object): strings, keys, and every byte field decoded as UTF-8, so JSON
 * payloads are searchable. (JSON.stringify would not do: proto messages serialise bytes as base64.)
 */
export function decodedText(value: unknown): string {
  const out: string[] = [];
  const seen = new Set<object>();
  const walk = (v: unknown): void => {
    if (v === null || v === undefined) return;
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') out.push(String(v));
    else if (v instanceof Uint8Array) out.push(Buffer.from(v).toString('utf8'));
    else if (typeof v === 'object' && !seen.has(v)) {
      seen.add(v);
      if (Array.isArray(v)) v.forEach(walk);
      else
        for (const [k, x] of Object.entries(v)) {
          out.push(k);
          walk(x);
        }
    }
  };
  walk(value);
  return out.join('\n');
}
