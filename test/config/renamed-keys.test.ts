/**
 * Renamed config keys (src/config/renamed-keys.ts): a config that still uses one fails in ONE line naming the
 * file, the old key path and the new one — one test per rename — and the same setting under its new key loads.
 * (vocab-codemod: keep — this test writes the old keys on purpose.)
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, RenamedKeyError } from '../../src/config/load';
import { RENAMED_KEYS } from '../../src/config/renamed-keys';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cfg-renamed-'));
let n = 0;
function write(text: string): string {
  const f = path.join(dir, `c${n++}.yaml`);
  writeFileSync(f, text);
  return f;
}

function renamedError(text: string): { file: string; message: string } {
  const file = write(text);
  try {
    loadConfig(file, { env: {} });
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(RenamedKeyError);
    return { file, message: (err as Error).message };
  }
  throw new Error(`expected a RenamedKeyError for:\n${text}`);
}

/** Old YAML, the one line it must fail with (after `<file>: `), and the same setting under the new key. */
const CASES: { from: string; old: string; line: string; now: string; check: (c: ReturnType<typeof loadConfig>['config']) => unknown }[] = [
  {
    from: 'phase5.corpus',
    old: 'phase5:\n  corpus:\n    max_sentences: 123\n',
    line: 'key phase5.corpus was renamed to corpus',
    now: 'corpus:\n  max_sentences: 123\n',
    check: (c) => c.corpus.max_sentences,
  },
  {
    from: 'phase5.index',
    old: 'phase5:\n  index:\n    batch_size: 17\n',
    line: 'key phase5.index was renamed to index',
    now: 'index:\n  batch_size: 17\n',
    check: (c) => c.index.batch_size,
  },
  {
    from: 'phase5.retrieval',
    old: 'phase5:\n  retrieval:\n    top_k: 7\n',
    line: 'key phase5.retrieval was renamed to retrieval',
    now: 'retrieval:\n  top_k: 7\n',
    check: (c) => c.retrieval.top_k,
  },
  {
    from: 'phase5.export',
    old: 'phase5:\n  export:\n    shard_size: 9\n',
    line: 'key phase5.export was renamed to export',
    now: 'export:\n  shard_size: 9\n',
    check: (c) => c.export.shard_size,
  },
  {
    from: 'phase5.analyze_errors',
    old: 'phase5:\n  analyze_errors: false\n',
    line: 'key phase5.analyze_errors was renamed to analysis.analyze_errors',
    now: 'analysis:\n  analyze_errors: false\n',
    check: (c) => c.analysis.analyze_errors,
  },
  {
    from: 'infer.conditions',
    old: 'infer:\n  conditions: [zero_shot]\n',
    line: 'key infer.conditions was renamed to infer.arms',
    now: 'infer:\n  arms: [zero_shot]\n',
    check: (c) => c.infer.arms,
  },
  {
    from: 'study.arms.*.infer.conditions',
    old: 'study:\n  arms:\n    - name: a\n    - name: b\n      infer: { conditions: [rag] }\n',
    line: 'key study.arms.1.infer.conditions was renamed to study.arms.1.infer.arms',
    now: 'study:\n  arms:\n    - name: a\n    - name: b\n      infer: { arms: [rag] }\n',
    check: (c) => c.study?.arms[1].infer,
  },
];

describe('config: renamed keys fail in one line naming the new key', () => {
  for (const c of CASES) {
    it(`${c.from}`, () => {
      const { file, message } = renamedError(c.old);
      expect(message).to.equal(`${file}: ${c.line}`);
      expect(message).to.not.contain('\n');
      const { config } = loadConfig(write(c.now), { env: {} });
      expect(c.check(config)).to.not.equal(undefined);
    });
  }

  it('phase5.max_retries: removed, the line says where retries are set', () => {
    const { file, message } = renamedError('phase5:\n  max_retries: 2\n');
    expect(message).to.equal(
      `${file}: key phase5.max_retries was removed: it set nothing; activity retries are temporal.retry, LLM request retries infer.openai.max_retries`,
    );
  });

  it('an empty phase5 block is still the old block', () => {
    const { file, message } = renamedError('phase5: {}\n');
    expect(message).to.match(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: key phase5 was dissolved: its blocks are top-level`),
    );
  });

  it('several renamed keys: still one line, every one named', () => {
    const { message } = renamedError('phase5:\n  corpus: { seed: 1 }\n  retrieval: { top_k: 2 }\ninfer:\n  conditions: [rag]\n');
    expect(message.split('\n')).to.have.length(1);
    expect(message).to.contain(
      'key phase5.corpus was renamed to corpus; key phase5.retrieval was renamed to retrieval; key infer.conditions was renamed to infer.arms',
    );
  });

  it('names the file relative to the current folder when it lies inside it', () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const file = write('phase5:\n  corpus: {}\n');
      expect(() => loadConfig(file, { env: {} })).to.throw(
        RenamedKeyError,
        new RegExp(`^${path.basename(file)}: key phase5.corpus was renamed to corpus$`),
      );
    } finally {
      process.chdir(cwd);
    }
  });

  it('every rename in the table has a case here', () => {
    const tested = new Set([...CASES.map((c) => c.from), 'phase5.max_retries']);
    expect(RENAMED_KEYS.map((r) => r.from).filter((f) => !tested.has(f))).to.deep.equal([]);
  });
});
