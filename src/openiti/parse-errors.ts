/** Why an OpenITI file cannot be parsed: no OpenITI header, or bytes that are not UTF-8. */

export class NoHeaderError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'NoHeaderError';
  }
}

export class NotUtf8Error extends Error {
  readonly detail: string;
  constructor(
    readonly file: string,
    readonly byteOffset: number,
  ) {
    const detail = `not valid UTF-8 (near byte ${byteOffset})`;
    super(`${file}: ${detail}`);
    this.detail = detail;
    this.name = 'NotUtf8Error';
  }
}
