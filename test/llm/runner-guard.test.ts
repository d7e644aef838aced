/**
 * The over-correction guard in the runner: guarded records carry raw_text and guard after raw_output; without
 * the guard (option absent or disabled) the file is byte for byte what the runner wrote before the guard existed.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanOutput } from '../../src/llm/clean';
import { GUARD_DEFAULTS, type GuardSettings } from '../../src/llm/guard';
import { CORRECTION_KEYS, type InferenceInputRow } from '../../src/llm/records';
import { validateCorrectionsFile } from '../../src/llm/record-files';
import { runCorrections } from '../../src/llm/runner';
import { LlmError, type ChatMessage, type CompletionResult, type LlmBackend } from '../../src/llm/types';
import { parseConfig } from '../../src/config/load';
import type { ArmRun } from '../../src/stages/study/arms';
import { importCorrections, optionsFrom, runArm, type InferOptions } from '../../src/stages/infer/infer';

// Real OCR_GS lines (Ibn al-Faqih, Buldan) and what a chatty model answers for each.
const OCR = [
  ' قال: وقال عبد الله بن عمرو بن العاص: البركة عشر بركات، في مصر تسع.',
  ' بركات وفي الأرضين بركة واحدة. والشر عشرة أجزاء، بمصر جزء واحد، وفي.',
  ' الأرض كلها تسعة أجزاء وأما معنى قولهم: عمر مصر الأممصار فإنه لم يحدث إلا.',
  ' البصرة والكوفة، وقد تفعل العرب هذا فتسمي الأثنين باسم الجميع؛ وقال.',
  ' الحسن: مصر عمر سبعة أمصار: المدينة، والبحرين، والبصرة، والكوفة،.',
];
const ANSWERS: Record<string, string> = {
  [OCR[0]]: '<think>نقطة زائدة</think>\nقال: وقال عبد الله بن عمرو بن العاص: البركة عشر بركات، في مصر تسع',
  [OCR[1]]: 'بركات وفي الأرضين بركة واحدة. والشر عشرة أجزاء، بمصر جزء واحد، وفي\n\nExplanation: removed the trailing period.',
  [OCR[2]]: 'I cannot help with this request.',
  [OCR[3]]: 'FAIL',
  [OCR[4]]: 'الحسن: مصر عمر سبعة أمصار: المدينة، والبحرين، والبصرة، والكوفة، واليمامة، والجزيرة، والشام',
};

/** Answers from ANSWERS by the user message (the OCR line); "FAIL" is a per-line failure (a 400). */
class ScriptedBackend implements LlmBackend {
  readonly id = 'scripted';
  readonly model = 'scripted-model';
  readonly concurrency = 1;
  constructor(private readonly answers: Record<string, string> = ANSWERS) {}
  async complete(messages: ChatMessage[]): Promise<CompletionResult> {
    const text = this.answers[messages[messages.length - 1].content];
    if (text === 'FAIL') throw new LlmError('client_error', 'HTTP 400: bad prompt', 400, 1);
    return { text, promptTokens: 10, completionTokens: 5, latencyMs: 3, attempts: 1 };
  }
  async close() {}
}

const inputs = (ocr: readonly string[] = OCR): InferenceInputRow[] =>
  ocr.map((o, i) => ({
    sample_id: `OCR_GS-Buldan/${String(i).padStart(6, '0')}`,
    dataset: 'OCR_GS-Buldan',
    ocr_text: o,
    gt_text: o.trim(),
    prompt_type: 'rag',
    retrieval_context: '',
    retrieved_k: 0,
    retrieval_scores: [],
  }));

const readRecords = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const ON: GuardSettings = { ...GUARD_DEFAULTS, enabled: true };

describe('llm/runner: over-correction guard', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'runner-guard-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function run(name: string, guard: GuardSettings | undefined, input = inputs().filter((_, i) => i !== 3)): Promise<string> {
    const outputPath = path.join(dir, name);
    await runCorrections({
      inputPath: input,
      outputPath,
      backend: new ScriptedBackend(),
      prompt: 'rag',
      progress: 'silent',
      ...(guard ? { guard } : {}),
    });
    return outputPath;
  }

  it('guard absent or disabled: byte-identical records with the default keys and cleaning; enabled: different bytes', async () => {
    const absent = await run('absent.jsonl', undefined);
    const disabled = await run('disabled.jsonl', { ...ON, enabled: false });
    const enabled = await run('enabled.jsonl', ON);
    expect(readFileSync(disabled)).to.deep.equal(readFileSync(absent));
    expect(sha256(disabled)).to.equal(sha256(absent));
    for (const r of readRecords(absent)) {
      // An answer with a <think> block carries it as `reasoning`, just before `error`.
      const reasoned = typeof r.reasoning === 'string';
      expect(Object.keys(r)).to.deep.equal(reasoned ? [...CORRECTION_KEYS.slice(0, -1), 'reasoning', 'error'] : [...CORRECTION_KEYS]);
      expect(r.corrected_text).to.equal(cleanOutput(r.raw_output as string, { source: r.ocr_text as string }));
    }
    expect(sha256(enabled)).to.not.equal(sha256(absent));
  });

  it('guard enabled: raw_text and guard follow raw_output; corrected_text is trimmed or falls back to the OCR line', async () => {
    const s = await runCorrections({
      inputPath: inputs(),
      outputPath: path.join(dir, 'c.jsonl'),
      backend: new ScriptedBackend(),
      prompt: 'rag',
      progress: 'silent',
      guard: ON,
    });
    const recs = readRecords(s.outputPath);
    const keys = [...CORRECTION_KEYS];
    const guardedKeys = [
      ...keys.slice(0, keys.indexOf('raw_output') + 1),
      'raw_text',
      'guard',
      ...keys.slice(keys.indexOf('raw_output') + 1),
    ];
    for (const i of [0, 1, 2, 4]) {
      expect(Object.keys(recs[i])).to.deep.equal(i === 0 ? [...guardedKeys.slice(0, -1), 'reasoning', 'error'] : guardedKeys);
      expect(recs[i].raw_text).to.equal(ANSWERS[OCR[i]]);
      expect(recs[i].raw_output).to.equal(ANSWERS[OCR[i]]);
    }
    expect(recs.map((r) => [r.corrected_text, r.guard ?? null])).to.deep.equal([
      ['قال: وقال عبد الله بن عمرو بن العاص: البركة عشر بركات، في مصر تسع', 'kept'],
      ['بركات وفي الأرضين بركة واحدة. والشر عشرة أجزاء، بمصر جزء واحد، وفي', 'trimmed'],
      [OCR[2], 'fell_back:not_arabic'],
      ['', null], // failed line: no guard keys, the error says why
      ['الحسن: مصر عمر سبعة أمصار: المدينة، والبحرين، والبصرة، والكوفة،', 'trimmed'],
    ]);
    expect(Object.keys(recs[3])).to.deep.equal([...CORRECTION_KEYS]);
    expect(recs[3].error).to.include({ reason: 'client_error' });
    expect(s.guardDecisions).to.deep.equal({ kept: 1, trimmed: 2, 'fell_back:not_arabic': 1 });
  });

  it('the import path keeps raw_text and guard, and still drops unknown keys', async () => {
    const file = await run('guarded.jsonl', ON);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const withExtra = { ...JSON.parse(lines[0]), retrieval_scores: [0.5] };
    writeFileSync(file, [JSON.stringify(withExtra), ...lines.slice(1)].join('\n') + '\n');
    const v = await validateCorrectionsFile(file);
    expect(v.ok).to.equal(true);
    expect(v.extraKeys).to.deep.equal(['retrieval_scores']);
    expect(v.records.map((r) => JSON.stringify(r))).to.deep.equal(lines);
  });

  it('the import path rejects a guard value that is not a decision', async () => {
    const file = await run('bad.jsonl', ON);
    const [first, ...rest] = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    writeFileSync(file, [JSON.stringify({ ...JSON.parse(first), guard: 'maybe' }), ...rest].join('\n') + '\n');
    const v = await validateCorrectionsFile(file);
    expect(v.invalid).to.have.length(1);
    expect(v.invalid[0]).to.include({ line: 1 });
    expect(v.invalid[0].message).to.match(/^guard: /);
  });

  it('refuses to resume a file written with the guard in the other state', async () => {
    const input = inputs().filter((_, i) => i !== 3);
    const unguarded = await run('off.jsonl', undefined, input.slice(0, 2));
    const resume = (outputPath: string, guard?: GuardSettings) =>
      runCorrections({ inputPath: input, outputPath, backend: new ScriptedBackend(), prompt: 'rag', progress: 'silent', guard }).then(
        () => null,
        (e: Error) => e.message,
      );
    expect(await resume(unguarded, ON)).to.equal(
      `${unguarded}:1: existing output was written without the over-correction guard, this run has it on; use another output path or remove the file to start over`,
    );
    const guarded = await run('on.jsonl', ON, input.slice(0, 2));
    expect(await resume(guarded)).to.match(/on\.jsonl:1: existing output was written with the over-correction guard, this run has it off/);
    expect(await resume(guarded, { ...ON, enabled: false })).to.match(/this run has it off/);
    // Same state: resumes.
    const s = await runCorrections({
      inputPath: input,
      outputPath: guarded,
      backend: new ScriptedBackend(),
      prompt: 'rag',
      progress: 'silent',
      guard: ON,
    });
    expect(s).to.include({ skippedExisting: 2, written: 2 });
  });
});

describe("stages/infer: an arm's guard reaches the runner", () => {
  const config = parseConfig({}, 'test.yaml');
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'infer-guard-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('an arm with the guard writes guarded records', async () => {
    const input = path.join(dir, 'inference_input.jsonl');
    writeFileSync(
      input,
      inputs()
        .filter((_, i) => i !== 3)
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    const arm: ArmRun = {
      name: 'rag_guarded',
      role: 'method',
      prompt: 'rag',
      input,
      output: path.join(dir, 'rag.jsonl'),
      model: 'scripted-model',
      guard: ON,
      upperBound: false,
      backend: () => ({ type: 'openai', baseUrl: 'http://unused', model: 'scripted-model' }),
      retrieval: { mode: 'dense', top_k: 3, fingerprint: 'test', settings: config.retrieval },
      config,
    };
    const options: InferOptions = { arms: [arm], force: false, retryFailed: false, maxFailedShare: 0.5, outageBudgetMs: 1000 };
    const res = await runArm(options, arm, {}, async () => new ScriptedBackend());
    expect(res).to.include({ written: 4, failed: 0 });
    expect(readRecords(res.output).map((r) => r.guard)).to.deep.equal(['kept', 'trimmed', 'fell_back:not_arabic', 'trimmed']);
  });
});

describe('stages/infer: an import into a guarded arm is guarded like a run', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'import-guard-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const study = (guard: boolean) =>
    parseConfig(
      {
        paths: { results_dir: path.join(dir, 'results') },
        study: { guard: { enabled: guard }, arms: [{ name: 'zero_shot', prompt: 'zero_shot' }, { name: 'rag' }] },
      },
      'test.yaml',
      { env: {} },
    );

  it('lines without a decision get trim + guard from raw_output (as the runner would), lines with one keep it; arm.json is written', async () => {
    // What an unguarded run elsewhere (e.g. on Kaggle) writes, and what a guarded run here writes.
    const unguarded = path.join(dir, 'unguarded.jsonl');
    const guarded = path.join(dir, 'guarded.jsonl');
    await runCorrections({
      inputPath: inputs(),
      outputPath: unguarded,
      backend: new ScriptedBackend(),
      prompt: 'rag',
      progress: 'silent',
    });
    await runCorrections({
      inputPath: inputs(),
      outputPath: guarded,
      backend: new ScriptedBackend(),
      prompt: 'rag',
      progress: 'silent',
      guard: ON,
    });
    const config = study(true);
    const res = await importCorrections(optionsFrom(config, { importFile: unguarded, arm: 'rag' }));
    expect(res.guard).to.deep.equal({ kept: 1, trimmed: 2, 'fell_back:not_arabic': 1 });
    const pick = (r: Record<string, unknown>) => [r.sample_id, r.corrected_text, r.raw_text ?? null, r.guard ?? null];
    expect(readRecords(res.output).map(pick)).to.deep.equal(readRecords(guarded).map(pick));
    // The arm had no export yet: the import wrote its arm.json, so the analysis finds the arm.
    const armJson = JSON.parse(readFileSync(path.join(dir, 'results', 'arms', 'rag', 'arm.json'), 'utf8'));
    expect(armJson).to.include({ name: 'rag', prompt: 'rag', upper_bound: false });
    expect(armJson.guard).to.include({ enabled: true });
    // Importing the guarded file again changes nothing: its lines carry their decisions.
    const again = await importCorrections(optionsFrom(config, { importFile: guarded, arm: 'rag' }));
    expect(again.guard).to.deep.equal({});
    expect(readFileSync(again.output, 'utf8')).to.equal(readFileSync(guarded, 'utf8'));
  });

  it('with the guard off an import is written as it is', async () => {
    const file = path.join(dir, 'unguarded.jsonl');
    await runCorrections({ inputPath: inputs(), outputPath: file, backend: new ScriptedBackend(), prompt: 'rag', progress: 'silent' });
    const res = await importCorrections(optionsFrom(study(false), { importFile: file, arm: 'rag' }));
    expect(res.guard).to.equal(undefined);
    expect(readFileSync(res.output, 'utf8')).to.equal(readFileSync(file, 'utf8'));
  });
});
