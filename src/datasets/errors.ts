/** A dataset that cannot be used as declared (missing path, no samples, bad suffixes): retrying cannot fix it. */
export class DatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatasetError';
  }
}
