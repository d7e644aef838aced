/**
 * The default export's record and link (src/stages/export/finished-export.ts): infer takes a default arm's
 * arms/<arm>/inference_input.jsonl only when the export it links to was made under the config's own retrieval
 * settings; one writer per file, a writer on another host taken over only once its lock went stale.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { checkExportSettings, pointAt, writeExportRecord } from '../../../src/stages/export/finished-export';
import { acquireFileLock } from '../../../src/index/writer-lock';

describe('default export record, link and writer lock', () => {
  let tmp: string;
  beforeEach(() => (tmp = mkdtempSync(path.join(os.tmpdir(), 'export-record-'))));
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  function exportOf(k: number): string {
    const config = parseConfig({ retrieval: { top_k: k } }, 'test');
    const dir = path.join(tmp, 'export', `fp${k}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'inference_input.jsonl'), `{"k":${k}}\n`);
    writeExportRecord(dir, { fingerprint: `fp${k}`, retrieval: config.retrieval, records: 1, sha256: '0'.repeat(64) });
    return path.join(dir, 'inference_input.jsonl');
  }

  it('the link points at the latest export; infer refuses it for other settings, naming the key', () => {
    const link = path.join(tmp, 'inference_input.jsonl');
    pointAt(link, exportOf(3));
    pointAt(link, exportOf(5));
    expect(readFileSync(link, 'utf8')).to.equal('{"k":5}\n');
    expect(() => checkExportSettings(link, parseConfig({ retrieval: { top_k: 5 } }, 'test'))).to.not.throw();
    expect(() => checkExportSettings(link, parseConfig({ retrieval: { top_k: 3 } }, 'test'))).to.throw(
      /inference_input\.jsonl is the export of other retrieval settings \(top_k 5 there, 3 here; .*export\.json\) — run `phase5 export`/,
    );
  });

  it('a file without export.json (made by another tool) is taken as is', () => {
    const file = path.join(tmp, 'mine.jsonl');
    writeFileSync(file, '{}\n');
    expect(() => checkExportSettings(file, parseConfig({}, 'test'))).to.not.throw();
  });

  it('a second writer is refused; a lock from another host is taken over only once stale', () => {
    const file = path.join(tmp, 'shard.jsonl');
    const lock = acquireFileLock(file, 'export shard');
    expect(() => acquireFileLock(file, 'export shard')).to.throw(/export shard .*shard\.jsonl is being written by another writer/);
    lock.release();
    writeFileSync(`${file}.lock`, '4242@elsewhere');
    expect(() => acquireFileLock(file, 'export shard', 60_000)).to.throw(/being written by process 4242@elsewhere/);
    const old = new Date(Date.now() - 120_000);
    utimesSync(`${file}.lock`, old, old);
    const taken = acquireFileLock(file, 'export shard', 60_000);
    expect(readFileSync(`${file}.lock`, 'utf8')).to.equal(`${process.pid}@${os.hostname()}`);
    taken.release();
  });
});
