/** study_manifest.json: resolved config, code version, package versions, the local GGUF's sha256, dataset digests. */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { codeVersion, writeStudyManifest } from '../../../src/stages/study/manifest';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('stages/study-manifest', () => {
  it('records the resolved config, the code version, package versions, the GGUF sha256 and each dataset’s digest', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'manifest-'));
    try {
      writeFileSync(path.join(dir, 'model.gguf'), 'GGUF-bytes');
      writeFileSync(path.join(dir, 'lines.jsonl'), '{"a":1}\n');
      mkdirSync(path.join(dir, 'pairs'));
      writeFileSync(path.join(dir, 'pairs', 'p1.gt.txt'), 'قال');
      writeFileSync(path.join(dir, 'pairs', 'p1.png.rec.txt'), 'قاك');
      writeFileSync(path.join(dir, 'pairs', 'notes.md'), 'not a dataset file');
      mkdirSync(path.join(dir, 'pairs', 'p2.gt.txt')); // a folder named like a gold file: counted, not read
      const config = parseConfig(
        {
          paths: { results_dir: path.join(dir, 'results') },
          infer: { backend: 'local', local: { model_path: path.join(dir, 'model.gguf') }, decoding: { seed: 3 } },
          datasets: {
            j: { type: 'jsonl', path: path.join(dir, 'lines.jsonl') },
            p: { type: 'paired_dir', path: path.join(dir, 'pairs') },
          },
        },
        'x.yaml',
        { env: {} },
      );
      const file = await writeStudyManifest(config);
      const m = JSON.parse(readFileSync(file, 'utf8'));
      expect(path.basename(file)).to.equal('study_manifest.json');
      expect(m.config.infer.decoding).to.deep.equal({ seed: 3 });
      expect(m.gguf).to.deep.equal([{ path: path.join(dir, 'model.gguf'), bytes: 10, sha256: sha('GGUF-bytes') }]);
      expect(m.datasets.j).to.deep.equal({ path: path.join(dir, 'lines.jsonl'), sha256: sha('{"a":1}\n') });
      expect(m.datasets.p.files).to.equal(2);
      expect(m.datasets.p.not_files).to.equal(1);
      expect(m.datasets.p.sha256).to.equal(sha(`p1.gt.txt\t${sha('قال')}\np1.png.rec.txt\t${sha('قاك')}`));
      expect(m.packages.openai).to.match(/^\d+\.\d+\.\d+/);
      expect(m.packages.node).to.equal(process.version);
      expect(m.code).to.deep.equal(codeVersion());
      if (m.code) expect(m.code.commit).to.match(/^[0-9a-f]{40}$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
