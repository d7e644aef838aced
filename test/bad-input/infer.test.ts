/**
 * Bad-input suite — infer stage (inferArm of test/helpers/stage-calls.ts / importCorrections called directly)
 * against the in-test fake OpenAI server (test/llm/fake-openai-server.ts), `infer.backend: openai`.
 *
 * Cases:
 *   - LLM HTTP 500 / 429 / timeout / invalid JSON (an outage) → no record for that line, what succeeded is
 *                                 kept, the activity fails retryably (LlmUnavailableError); with the server
 *                                 back the same call completes with zero failed records
 *   - LLM HTTP 400 on one line  → a recorded error {reason: client_error}; the rest corrected
 *   - LLM empty content / 400 over infer.max_failed_share → non-retryable, one line with counts and reasons
 *   - --retry-failed            → only the failed lines are sent again
 *   - corrections.jsonl with a torn last line → the resumed run cuts it (logged) and redoes that sample only
 *   - infer with no inference_input.jsonl → non-retryable "no …/inference_input.jsonl — run `phase5 export` first"
 *   - inference_input.jsonl with a torn last line → non-retryable "file:line: invalid JSON"; cut, the same call runs
 *   - corrections import with malformed lines → non-retryable, every bad line by number; without them the
 *                                 import succeeds
 *   - API key variable not set  → fails naming the variable (no key in the message)
 *   - GGUF model missing        → non-retryable, names the file and infer.local.model_path
 */
import { expect } from 'chai';
import { copyFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';

import type { CorrectionRecord } from '../../src/llm/records';
import { recoverJsonl } from '../../src/io/jsonl';
import { inferenceInputRecord } from '../helpers/records';
import { FIXTURES } from '../helpers/shared-data';
import { startFakeServer, echo, type FakeResponse, type FakeServer } from '../llm/fake-openai-server';
import { failsWithLogs, makeConfig, stageInput, tmpDir, withLogs } from './helpers';
import { createStageCalls } from '../helpers/stage-calls';
import { writeDefaultInput } from '../helpers/default-arms';

const { importCorrections, inferArm } = createStageCalls();

const KEY_ENV = 'PHASE5_BAD_INPUT_KEY';

const CASES: Record<string, FakeResponse> = {
  'case-500': { status: 500, json: { error: { message: 'internal error' } } },
  'case-429': { status: 429, headers: { 'retry-after': '0' }, json: { error: { message: 'slow down' } } },
  'case-timeout': { delayMs: 2500, content: 'too late' },
  'case-invalid': { raw: '{"choices": [{"message": ' },
  'case-empty': { content: '' },
  'case-400': { status: 400, json: { error: { message: 'prompt too long' } } },
};
const IDS = ['ok-1', ...Object.keys(CASES), 'ok-2'];

const inputRecord = (id: string) => inferenceInputRecord(id);

const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const readCorrections = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CorrectionRecord);

describe('bad-input suite', function () {
  this.timeout(60000);
  let server: FakeServer;
  let healthy = false;
  const previousKey = process.env[KEY_ENV];

  before(async () => {
    process.env[KEY_ENV] = 'test-key-bad-input';
    server = await startFakeServer((req) => {
      const user = req.body.messages?.find((m) => m.role === 'user')?.content ?? '';
      return (!healthy && CASES[user]) || echo(req);
    });
  });
  after(async () => {
    await server?.close();
    if (previousKey === undefined) delete process.env[KEY_ENV];
    else process.env[KEY_ENV] = previousKey;
  });

  /** A results dir with inference_input.jsonl and a config for the fake server. */
  function study(
    prefix: string,
    records = IDS.map(inputRecord),
    openai: Record<string, unknown> = {},
    infer: Record<string, unknown> = {},
  ) {
    const results = tmpDir(prefix);
    const inputFile = writeDefaultInput(results, jsonl(records));
    const config = makeConfig(results, {
      infer: {
        backend: 'openai',
        arms: ['rag'],
        openai: {
          base_url: server.url,
          model: 'fake-model',
          api_key_env: KEY_ENV,
          max_retries: 0,
          timeout_s: 0.5,
          concurrency: 8,
          ...openai,
        },
        ...infer,
      },
    });
    return { results, inputFile, output: path.join(results, 'arms', 'rag', 'corrections.jsonl'), config };
  }

  describe('infer', () => {
    describe('LLM outages: never recorded, a retryable failure', () => {
      // Safety net: before, each of these became a failed record and the activity completed.
      for (const [id, reason] of [
        ['case-500', 'server_error'],
        ['case-429', 'rate_limited'],
        ['case-timeout', 'timeout'],
        ['case-invalid', 'invalid_response'],
      ] as const) {
        it(`LLM ${id.slice(5)} → ${reason}`, async () => {
          healthy = false;
          const s = study(`outage-${id}`, ['ok-1', id, 'ok-2'].map(inputRecord), { concurrency: 1 });
          const {
            result: { err },
          } = await withLogs(() =>
            inferArm({ input: stageInput(s.config), arm: 'rag' }).then(
              () => ({ err: null }),
              (e: unknown) => ({ err: e as Error }),
            ),
          );
          expect(err, 'the activity must fail').to.be.instanceOf(Error);
          expect(err).not.to.be.instanceOf(ApplicationFailure); // a plain error: Temporal retries it
          expect(err!.name).to.equal('LlmUnavailableError');
          expect(err!.message).to.contain(`LLM endpoint not serving (${reason}: `);
          expect(err!.message).to.match(/— retrying \(outage for \d+s of infer\.outage_budget 30m\)/);
          // What succeeded before the outage is kept; the line that met the outage is not written.
          expect(readCorrections(s.output).map((r) => [r.sample_id, r.error])).to.deep.equal([['ok-1', null]]);
          healthy = true;
          try {
            const { result } = await withLogs(() => inferArm({ input: stageInput(s.config), arm: 'rag' }));
            expect(result).to.include({ skippedExisting: 1, written: 2, failed: 0 });
            expect(readCorrections(s.output).every((r) => r.error === null && r.corrected_text === r.sample_id)).to.equal(true);
          } finally {
            healthy = false;
          }
        });
      }
    });

    describe('per-line failures: recorded, bounded by infer.max_failed_share', () => {
      it('LLM HTTP 400 on one line → one failed record, the rest corrected (share allowed)', async () => {
        const ids = ['ok-1', 'case-400', ...Array.from({ length: 8 }, (_, i) => `ok-x${i}`)];
        const s = study('client-error', ids.map(inputRecord), {}, { max_failed_share: 0.2 });
        const { result } = await withLogs(() => inferArm({ input: stageInput(s.config), arm: 'rag' }));
        expect(result).to.include({ written: 10, succeeded: 9, failed: 1 });
        expect(result.failuresByReason).to.deep.equal({ client_error: 1 });
        const byId = new Map(readCorrections(s.output).map((r) => [r.sample_id, r]));
        expect(byId.get('case-400')!.error).to.include({ reason: 'client_error', status: 400 });
        expect([...byId.values()].filter((r) => r.error)).to.have.length(1);
      });

      it('LLM empty content over max_failed_share → non-retryable, one line naming counts, reasons and the first failure', async () => {
        const s = study('empty', ['ok-1', 'case-empty', 'case-400', 'ok-2'].map(inputRecord));
        // Safety net: without the share check this run completed with half its lines failed.
        const { message } = await failsWithLogs(
          () => inferArm({ input: stageInput(s.config), arm: 'rag' }),
          /^infer rag: 2 of 4 lines failed \(50%, over infer\.max_failed_share 1%\): 1 empty_content, 1 client_error — first: case-empty: empty_content — choices\[0\]\.message\.content is empty; .*--retry-failed/,
        );
        expect(message).not.to.contain('\n');
        expect(readCorrections(s.output)).to.have.length(4); // the records stay: --retry-failed redoes them
      });

      it('--retry-failed re-runs only the failed lines', async () => {
        const s = study('retry-failed', ['ok-1', 'case-empty', 'ok-2', 'case-400'].map(inputRecord), {}, { max_failed_share: 0.5 });
        await withLogs(() => inferArm({ input: stageInput(s.config), arm: 'rag' }));
        const before = server.requests.length;
        healthy = true;
        try {
          const again = await withLogs(() => inferArm({ input: stageInput(s.config), arm: 'rag' }));
          expect(again.result).to.include({ written: 0, skippedExisting: 4 }); // without the flag nothing is redone
          const { result } = await withLogs(() => inferArm({ input: stageInput(s.config, { retryFailed: true }), arm: 'rag' }));
          expect(result).to.include({ written: 2, succeeded: 2, failed: 0, skippedExisting: 2 });
          const sent = server.requests
            .slice(before)
            .filter((r) => r.method === 'POST') // a GET: the model check before the first correction
            .map((r) => r.body.messages?.find((m) => m.role === 'user')?.content);
          expect(sent.sort()).to.deep.equal(['case-400', 'case-empty']);
          const recs = readCorrections(s.output);
          expect(recs.map((r) => r.sample_id).sort()).to.deep.equal(['case-400', 'case-empty', 'ok-1', 'ok-2']);
          expect(recs.every((r) => r.error === null)).to.equal(true);
        } finally {
          healthy = false;
        }
      });
    });

    it('corrections.jsonl with a torn last line', async () => {
      healthy = true;
      try {
        const s = study('torn-output');
        await withLogs(() => inferArm({ input: stageInput(s.config), arm: 'rag' }));
        const complete = readFileSync(s.output, 'utf8');
        truncateSync(s.output, Buffer.byteLength(complete) - 20); // a crash in the middle of the last line
        const { result, logs } = await withLogs(() => inferArm({ input: stageInput(s.config), arm: 'rag' }));
        expect(
          logs.some(
            (l) => /cut a partial last line/.test(l.msg) && l.truncatedBytes === Buffer.byteLength(complete.split('\n').at(-2)!) + 1 - 20,
          ),
        ).to.equal(true);
        expect(result).to.include({ written: 1, skippedExisting: IDS.length - 1 });
        const ids = readCorrections(s.output).map((r) => r.sample_id);
        expect(ids).to.deep.equal(IDS); // complete, no duplicate
      } finally {
        healthy = false;
      }
    });

    it('infer with no inference_input.jsonl', async () => {
      const results = tmpDir('no-input');
      const { config } = study('unused');
      const cfg = { ...config, paths: { results_dir: results } };
      await failsWithLogs(
        () => inferArm({ input: stageInput(cfg), arm: 'rag' }),
        new RegExp(`no ${path.join(results, 'arms', 'rag', 'inference_input.jsonl')} — run \`phase5 export\` first`),
      );
      writeDefaultInput(results, jsonl(['ok-1', 'ok-2'].map(inputRecord)));
      healthy = true;
      try {
        const { result } = await withLogs(() => inferArm({ input: stageInput(cfg), arm: 'rag' }));
        expect(result).to.include({ written: 2, failed: 0 });
      } finally {
        healthy = false;
      }
    });

    it('inference_input.jsonl with a torn last line', async () => {
      const s = study('torn-input', ['ok-1', 'ok-2', 'ok-3'].map(inputRecord));
      const full = readFileSync(s.inputFile, 'utf8');
      truncateSync(s.inputFile, Buffer.byteLength(full) - 30);
      await failsWithLogs(() => inferArm({ input: stageInput(s.config), arm: 'rag' }), new RegExp(`${s.inputFile}:3: invalid JSON`));
      // Nothing was written that a later run would trip over; with the torn line cut the same call runs.
      expect(recoverJsonl(s.output).records).to.equal(0);
      recoverJsonl(s.inputFile);
      healthy = true;
      try {
        const { result } = await withLogs(() => inferArm({ input: stageInput(s.config), arm: 'rag' }));
        expect(result).to.include({ written: 2, failed: 0 });
      } finally {
        healthy = false;
      }
    });

    it('corrections import with malformed lines', async () => {
      // The arm's export holds the fixture's lines (same ids, dataset and OCR text), so only the malformed ones fail.
      const fixture = path.join(FIXTURES, 'llm', 'corrections-import.jsonl');
      const exportRows = [0, 1, 2, 3, 4, 5, 6].map((i) => ({
        ...inputRecord(`OCR_GS-Jahiz.Hayawan/00000${i}`),
        dataset: 'OCR_GS-Jahiz.Hayawan',
        ocr_text: i === 1 ? 'ا' : 'بلعو واحلة',
      }));
      const s = study('import', exportRows);
      const file = path.join(s.results, 'import.jsonl');
      copyFileSync(fixture, file);
      const { message } = await failsWithLogs(
        () => importCorrections(stageInput(s.config, { importFile: file })),
        /^import rejected — /,
        /1 line is not valid JSON \(line 3: /,
        /1 line lacks corrected_text \(line 5\) — add it/,
        /1 line has a bad prompt_type and latency_ms \(line 6: prompt_type: /,
        /1 line repeats a sample_id \(line 7: "OCR_GS-Jahiz.Hayawan\/000000" \(first at line 1\)\) — keep one line per sample_id; and 1 more kind of problem$/,
      );
      expect(message).not.to.contain('\n');
      expect(message.length).to.be.at.most(500);
      // Drop the bad lines (line 10, not an object, is the kind the cap left out).
      const badLines = new Set([3, 5, 6, 7, 10]);
      const kept = readFileSync(file, 'utf8')
        .split('\n')
        .filter((_, i) => !badLines.has(i + 1));
      writeFileSync(file, kept.join('\n'));
      const { result } = await withLogs(() => importCorrections(stageInput(s.config, { importFile: file })));
      expect(result.imported).to.equal(kept.filter((l) => l.trim()).length);
      expect(readCorrections(result.output)).to.have.length(result.imported);
    });

    it('API key variable not set', async () => {
      const s = study('no-key');
      const cfg = {
        ...s.config,
        infer: { ...s.config.infer, openai: { ...s.config.infer.openai, api_key_env: 'PHASE5_BAD_INPUT_UNSET_KEY' } },
      };
      delete process.env.PHASE5_BAD_INPUT_UNSET_KEY;
      const requestsBefore = server.requests.length;
      let err: Error | undefined;
      try {
        await inferArm({ input: stageInput(cfg), arm: 'rag' });
      } catch (e) {
        err = e as Error;
      }
      expect(err?.message).to.match(/environment variable PHASE5_BAD_INPUT_UNSET_KEY is not set — set it in the worker.s environment/);
      expect(server.requests.length, 'no request went out without a key').to.equal(requestsBefore);
      expect(recoverJsonl(s.output).records).to.equal(0);
    });

    it('GGUF model missing', async () => {
      const s = study('no-gguf');
      const gguf = path.join(s.results, 'missing.gguf');
      const cfg = {
        ...s.config,
        infer: { ...s.config.infer, backend: 'local' as const, local: { ...s.config.infer.local, model_path: gguf } },
      };
      await failsWithLogs(
        () => inferArm({ input: stageInput(cfg), arm: 'rag' }),
        new RegExp(`GGUF model not found: ${gguf} — put it on this worker \\(infer\\.local\\.model_path`),
      );
    });
  });
});
