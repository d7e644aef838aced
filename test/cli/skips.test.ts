/** `describeSkips`: one summary per stage from its typed result; nothing for clean results or results from older code. */
import { expect } from 'chai';
import path from 'node:path';
import { describeSkips, stageOfWorkflowType } from '../../bin/cli/skips';

const build = {
  corpus: {
    skipped: {
      'file unreadable': { count: 2, examples: ['data/a.txt: not valid UTF-8', 'data/b.txt: not valid UTF-8'] },
      'metadata row': { count: 1, examples: ['meta.csv:5: bad date'] },
    },
  },
};
const exported = {
  merged: {
    skipped: {
      demo: {
        badLines: {
          count: 5,
          examples: [
            path.join(process.cwd(), 'data/x.jsonl:4: invalid JSON'),
            path.join(process.cwd(), 'data/x.jsonl:9: x'),
            path.join(process.cwd(), 'data/x.jsonl:12: y'),
          ],
        },
      },
    },
  },
};
const infer = {
  rag: { skipped: { 'duplicate input record': { count: 1, examples: ['demo/7'] }, 'failed: client_error': { count: 2, examples: [] } } },
};

describe('describeSkips', () => {
  it('describes build, export and infer skips by kind with counts and compact file:line examples', () => {
    expect(describeSkips('build', build)).to.deep.equal([
      'build skipped 3 corpus input(s): 2 file unreadable (data/a.txt: not valid UTF-8, data/b.txt: not valid UTF-8), 1 metadata row (meta.csv:5)',
    ]);
    expect(describeSkips('export', exported)).to.deep.equal([
      'export skipped 5 input line(s)/file(s) in 1 dataset(s):',
      '  demo — 5 invalid line (data/x.jsonl:4, :9, :12, …)',
    ]);
    expect(describeSkips('infer', infer)).to.deep.equal([
      'infer rag skipped 3 line(s): 1 duplicate input record (demo/7), 2 failed: client_error',
    ]);
    expect(describeSkips('run', { build, export: exported, infer })).to.have.length(4);
  });

  it('says nothing for clean results, imports, analyze, or results from code before skips were recorded', () => {
    expect(describeSkips('export', { merged: { skipped: {} } })).to.deep.equal([]);
    expect(describeSkips('export', { merged: { path: 'x', records: 3, byDataset: {} } })).to.deep.equal([]);
    expect(describeSkips('build', { corpus: { sentences: 3 } })).to.deep.equal([]);
    expect(describeSkips('infer', { imported: { imported: 3 } })).to.deep.equal([]);
    expect(describeSkips('infer', { rag: { written: 3 } })).to.deep.equal([]);
    expect(describeSkips('analyze', { report: 'x' })).to.deep.equal([]);
    expect(describeSkips('run', {})).to.deep.equal([]);
  });

  it('maps workflow types to stages', () => {
    expect(stageOfWorkflowType('exportWorkflow')).to.equal('export');
    expect(stageOfWorkflowType('phase5Workflow')).to.equal('run');
    expect(stageOfWorkflowType('doctorWorkflow')).to.equal(null);
  });
});
