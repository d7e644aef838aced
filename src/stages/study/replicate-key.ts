/**
 * The name of one replicate's run where runs are keyed (infer results, the arm child workflows): the arm's name
 * for replicate 0, `<arm>#<r>` for the others (`#` is not allowed in arm names, so no key names two runs). Pure
 * (no Node imports): the infer workflow calls it.
 */
export function replicateKey(arm: string, replicate: number | undefined): string {
  return replicate ? `${arm}#${replicate}` : arm;
}
