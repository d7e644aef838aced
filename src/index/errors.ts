/** Errors of the index layer; messages say what is wrong and which command fixes it. */

export class IndexMissingError extends Error {
  constructor(
    readonly indexPath: string,
    detail = '',
  ) {
    super(`no index at ${indexPath}${detail ? ` (${detail})` : ''} — run \`phase5 build\``);
    this.name = 'IndexMissingError';
  }
}

/** The index on disk was built with other settings, model or corpus than the config asks for. */
export class IndexMismatchError extends Error {
  constructor(
    readonly indexPath: string,
    readonly field: string,
    readonly built: unknown,
    readonly expected: unknown,
  ) {
    super(
      `index at ${indexPath} was built with ${field}=${show(built)}, config says ${show(expected)} — rebuild with \`phase5 build --force\``,
    );
    this.name = 'IndexMismatchError';
  }
}

/** A file of the index is truncated, malformed or inconsistent with the manifest. */
export class IndexCorruptError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`index file ${file} is unusable: ${detail} — rebuild with \`phase5 build --force\``);
    this.name = 'IndexCorruptError';
  }
}

/** Partial vectors left by an interrupted build that do not belong to this corpus or model: resuming would mix them. */
export class PartialVectorsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PartialVectorsError';
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return v.length > 16 && /^[0-9a-f]+$/.test(v) ? v.slice(0, 12) + '…' : JSON.stringify(v);
  return JSON.stringify(v);
}
