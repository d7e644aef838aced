/**
 * The probe against a server double that has memorised one book: the continuation test and the likelihood test
 * separate that book from one it has not read, by their controls; and short formulaic lines that any model
 * continues show why the control is needed (without the unpublished control the probe calls them memorised).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { probeLineScores } from '../../../analysis/probe/line-scores';
import { writeMemorisation, type Memorisation } from '../../../analysis/probe/memorisation';
import { memorisationBlocks } from '../../../analysis/report/sections/memorisation';
import { openProbeClient } from '../../../src/stages/probe/open-client';
import { optionsFrom } from '../../../src/stages/probe/options';
import { runProbeJob } from '../../../src/stages/probe/run-job';
import type { Config } from '../../../src/config/schema';
import { startMemorisingServer, type MemorisingServer } from '../../helpers/memorising-server';
import { probeStudy, randomLines } from '../../helpers/probe-study';

let lastDir = '';

async function probe(config: Config): Promise<Memorisation> {
  const o = optionsFrom(config, {});
  for (const job of o.jobs) {
    const client = await openProbeClient(config, job.model, { PROBE_TEST_KEY: 'test' });
    await runProbeJob(o, job, client);
    await client.close();
  }
  await writeMemorisation(o);
  lastDir = path.dirname(o.memorisationFile);
  return JSON.parse(readFileSync(o.memorisationFile, 'utf8')) as Memorisation;
}

describe('memorisation probe against a server that has memorised one book', () => {
  let server: MemorisingServer;
  const read = randomLines(1, 60);
  const unread = randomLines(2, 60);
  const unpublished = randomLines(3, 60);
  afterEach(async () => server?.close());

  it('finds the memorised book above its control and the other book at it, in both tests', async () => {
    server = await startMemorisingServer(read);
    const { config } = probeStudy(
      { Read: read, Unread: unread, Unpub: unpublished },
      { baseUrl: server.baseUrl, probe: { control: 'Unpub' } },
    );
    const doc = await probe(config);
    const a = doc.datasets.Read.double;
    const b = doc.datasets.Unread.double;
    assert.equal(a.continuation.verbatim_share, 1);
    assert.equal(b.continuation.verbatim_share, 0);
    assert.equal(a.control.shuffled.verbatim_share, 0);
    assert.ok(a.continuation.verbatim_share_ci95, 'twelve clusters give an interval');
    assert.equal(a.above_control, true);
    assert.equal(a.rule, 'intervals');
    assert.equal(b.above_control, false);
    assert.ok(!('skipped' in a.likelihood) && !('skipped' in b.likelihood));
    if ('skipped' in a.likelihood || 'skipped' in b.likelihood) return;
    assert.equal(a.likelihood.versus_control.control, 'Unpub');
    assert.equal(a.likelihood.versus_control.auc_min_k, 1);
    assert.ok(
      b.likelihood.versus_control.auc_min_k! > 0.3 && b.likelihood.versus_control.auc_min_k! < 0.7,
      `unread AUC ${b.likelihood.versus_control.auc_min_k}`,
    );
    assert.equal(a.likelihood.exact, false, 'top-n log-probabilities of a server are an approximation');
    assert.ok(doc.controls.Unpub.double.verbatim_share === 0);
    // The report's section names the memorised book only, and is absent where no probe ran.
    const blocks = memorisationBlocks(lastDir);
    const list = blocks.find((b) => b.kind === 'list');
    assert.ok(list && list.kind === 'list');
    assert.deepEqual(list.items, [
      "double continues 100 % of Read's lines almost verbatim (control 0 %, shuffled): gains on this book may come from memory.",
    ]);
    assert.deepEqual(memorisationBlocks(path.join(lastDir, 'nowhere')), []);
    // The tidy table's per-line scores read these very records: every line of the read book memorised, none of the other.
    const scores = (await probeLineScores(path.dirname(lastDir)))?.get('double');
    assert.ok(scores, 'the probe wrote per-line scores for the model');
    const of = (ds: string) => [...scores.entries()].filter(([k]) => k.startsWith(`${ds}\0`)).map(([, v]) => v);
    assert.ok(of('Read').length > 0 && of('Unread').length > 0);
    assert.ok(of('Read').every((v) => v.memorised && v.cer <= 0.1));
    assert.ok(of('Unread').every((v) => !v.memorised));
    assert.equal(of('Unpub').length, 0, 'the control is no study line');
  });

  it('skips the likelihood test with the server’s reason when it refuses echo, and still runs the continuation test', async () => {
    server = await startMemorisingServer(read, { echo: false });
    const { config } = probeStudy({ Read: read.slice(0, 20) }, { baseUrl: server.baseUrl });
    const doc = await probe(config);
    const a = doc.datasets.Read.double;
    assert.ok('skipped' in a.likelihood);
    if ('skipped' in a.likelihood) assert.match(a.likelihood.skipped, /HTTP 400: .*Only no echo is supported/);
    assert.equal(a.continuation.verbatim_share, 1);
    assert.equal(server.requests.filter((r) => r.echo).length, 1, 'the refusal is asked once, not per line');
  });

  it('short formulaic lines: the unpublished control keeps them from being called memorised (without it they are)', async () => {
    const formulas = [
      'قال أبو عثمان رحمه الله',
      'بسم الله الرحمن الرحيم',
      'وصلى الله على محمد وآله',
      'والحمد لله رب العالمين',
      'قال الشاعر في ذلك',
    ];
    const lines = (seed: number) => randomLines(seed, 60, 1).map((_, i) => formulas[(i * 7 + seed) % formulas.length]!);
    // A model that has read no book but knows the formulas every text uses.
    server = await startMemorisingServer(formulas);
    const withControl = probeStudy({ Book: lines(1), Unpub: lines(2) }, { baseUrl: server.baseUrl, probe: { control: 'Unpub' } });
    const without = probeStudy({ Book: lines(1) }, { baseUrl: server.baseUrl });
    const w = (await probe(withControl.config)).datasets.Book.double;
    const n = (await probe(without.config)).datasets.Book.double;
    assert.equal(w.continuation.verbatim_share, 1);
    assert.equal(n.above_control, true, 'against the shuffled lines alone the formulas look memorised');
    assert.equal(w.above_control, false);
    assert.equal(w.control.source, 'Unpub');
  });
});
