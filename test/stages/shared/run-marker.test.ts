/**
 * The run marker (src/stages/shared/run-marker.ts): a worker that sees the client's results dir and datasets passes; one
 * that cannot read the marker, or lists other dataset files, fails with a worker-local error naming the path.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { checkRunMarker, runMarkerPath, writeRunMarker } from '../../../src/stages/shared/run-marker';
import { WorkerSetupError } from '../../../src/util/worker-setup-error';

describe('run marker', () => {
  let tmp: string;
  beforeEach(() => (tmp = mkdtempSync(path.join(os.tmpdir(), 'run-marker-'))));
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  function setup() {
    const book = path.join(tmp, 'book');
    mkdirSync(book);
    writeFileSync(path.join(book, 'a.gt.txt'), 'x\n');
    const config = parseConfig(
      { paths: { results_dir: path.join(tmp, 'results') }, datasets: { book: { type: 'paired_dir', path: book } } },
      'test',
    );
    return { book, config, options: writeRunMarker(config, {}, 'r-1234abcd') };
  }

  it('passes where the worker sees what the client saw; without a marker option nothing is checked', () => {
    const { config, options } = setup();
    expect(options.runMarker).to.equal(runMarkerPath(config, 'r-1234abcd'));
    expect(() => checkRunMarker(config, options, 'r-1234abcd')).to.not.throw();
    expect(() => checkRunMarker(config, {}, 'r-1234abcd')).to.not.throw();
  });

  it('a marker this worker cannot read fails worker-locally, naming the path', () => {
    const { config, options } = setup();
    rmSync(options.runMarker!);
    expect(() => checkRunMarker(config, options, 'r-1234abcd'))
      .to.throw(WorkerSetupError)
      .with.property('message')
      .that.matches(/^run marker \S+r-1234abcd\.json is not readable on this worker — mount the results dir/);
  });

  it('a dataset listing other files than the marker records fails worker-locally, naming the dataset path', () => {
    const { book, config, options } = setup();
    writeFileSync(path.join(book, 'b.gt.txt'), 'y\n');
    expect(() => checkRunMarker(config, options, 'r-1234abcd'))
      .to.throw(WorkerSetupError)
      .with.property('message')
      .that.contains(`dataset book at ${book} lists other files on this worker than the run marker`);
  });

  it('a results dir that cannot hold the marker (a file) gets none: the stage reports the results dir itself', () => {
    const file = path.join(tmp, 'a-file');
    writeFileSync(file, 'x');
    const config = parseConfig({ paths: { results_dir: file } }, 'test');
    expect(writeRunMarker(config, { limit: 3 }, 'r-1')).to.deep.equal({ limit: 3 });
  });

  it("another run's marker at the path is refused", () => {
    const { config, options } = setup();
    expect(() => checkRunMarker(config, options, 'r-ffffffff')).to.throw(
      WorkerSetupError,
      /is another run's \(r-1234abcd, not r-ffffffff\)/,
    );
  });
});
