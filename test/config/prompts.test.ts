/** Config keys of prompts and decoding: templates from files, and one-line errors naming the key. */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load';
import { armConfig, armModeAndPrompt } from '../../src/config/study';
import { armRequestDecoding, backendConfig } from '../../src/stages/infer/backend';

const arms = (...a: object[]) => ({ arms: a });
const problems = (raw: object): string[] => {
  try {
    parseConfig(raw, 'x.yaml', { env: {} });
  } catch (e) {
    if (e instanceof ConfigError)
      return e.message
        .split('\n')
        .slice(1)
        .map((l) => l.trim().replace(/^- /, ''));
    throw e;
  }
  return [];
};

describe('config: prompts and decoding', () => {
  it('an unknown prompt name, an unknown placeholder and a retrieving arm whose template has no {retrieval_context} are one line each', () => {
    expect(problems({ study: arms({ name: 'a', prompt: 'nope' }) }).join('\n')).to.match(/study\.arms\.0\.prompt: .*unknown prompt "nope"/);
    const bad = problems({
      study: {
        prompts: { t: { version: '1', system: 'صحح {ocr_txt}', user: '{ocr_text}' }, plain: { version: '1', system: 'صحح' } },
        arms: [
          { name: 'a', prompt: 't', retrieval: { mode: 'none' } },
          { name: 'b', prompt: 'plain', retrieval: { mode: 'dense' } },
        ],
      },
    });
    expect(bad.some((l) => /^study\.prompts\.t\.system: unknown placeholder \{ocr_txt\}/.test(l))).to.equal(true);
    expect(bad.some((l) => /^study\.arms\.1\.prompt: template "plain" has no \{retrieval_context\}/.test(l))).to.equal(true);
    expect(problems({ study: { prompts: { rag: { version: '1', system: 'x' } }, arms: [{ name: 'a' }] } }).join('\n')).to.match(
      /study\.prompts\.rag: "rag" is a built-in prompt/,
    );
  });

  it('a template without {retrieval_context} makes its arm zero-shot; one with it makes it retrieve', () => {
    const config = parseConfig(
      {
        study: {
          prompts: { plain: { version: 'p1', system: 'صحح' }, ctx: { version: 'c1', system: 'المراجع: {retrieval_context}' } },
          arms: [
            { name: 'a', prompt: 'plain' },
            { name: 'b', prompt: 'ctx' },
          ],
        },
      },
      'x.yaml',
      { env: {} },
    );
    const modes = config.study!.arms.map((a) => armModeAndPrompt(a, config.study!.prompts));
    expect(modes).to.deep.equal([
      { mode: 'none', prompt: 'zero_shot', template: 'plain' },
      { mode: 'dense', prompt: 'rag', template: 'ctx' },
    ]);
  });

  it('reads system_file / user_file against the config file’s folder, and names an unreadable one', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'prompt-files-'));
    try {
      mkdirSync(path.join(dir, 'prompts'));
      writeFileSync(path.join(dir, 'prompts', 'sys.txt'), 'صحح النص. المراجع:\n{retrieval_context}');
      const file = path.join(dir, 'study.yaml');
      writeFileSync(
        file,
        'study:\n  prompts:\n    f: { version: f1, system_file: prompts/sys.txt }\n  arms:\n    - { name: a, prompt: f }\n',
      );
      const { config } = loadConfig(file, { env: {} });
      expect(config.study!.prompts!.f).to.deep.equal({ version: 'f1', system: 'صحح النص. المراجع:\n{retrieval_context}' });
      writeFileSync(
        file,
        'study:\n  prompts:\n    f: { version: f1, system_file: prompts/none.txt }\n  arms:\n    - { name: a, prompt: f }\n',
      );
      expect(() => loadConfig(file, { env: {} })).to.throw(/study\.prompts\.f\.system_file: cannot read .*none\.txt \(ENOENT\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('infer.temperature stays the default of decoding.temperature; an arm’s decoding reaches its backend', () => {
    const config = parseConfig(
      {
        infer: {
          backend: 'openai',
          temperature: 0.4,
          decoding: { seed: 1, extra_body: { chat_template_kwargs: { enable_thinking: false } } },
        },
        study: arms({ name: 'a' }, { name: 'b', decoding: { seed: 2, max_tokens: 99 } }),
      },
      'x.yaml',
      { env: {} },
    );
    const [a, b] = config.study!.arms.map((arm) => armRequestDecoding(armConfig(config, arm)));
    expect(a).to.include({ temperature: 0.4, seed: 1, max_tokens: 512 });
    expect(b).to.include({ temperature: 0.4, seed: 2, max_tokens: 99 });
    expect(b.extra_body).to.deep.equal({ chat_template_kwargs: { enable_thinking: false } });
    const backend = backendConfig(armConfig(config, config.study!.arms[1]));
    expect(backend).to.deep.include({ decoding: b });
  });

  it('the local backend refuses a JSON response_format and extra_body, naming the key', () => {
    const lines = problems({ infer: { decoding: { response_format: { type: 'json_object' }, extra_body: { x: 1 } } } });
    expect(lines).to.include(
      'infer.decoding.response_format: the local backend cannot constrain its answer to JSON — use infer.backend: openai',
    );
    expect(lines).to.include('infer.decoding.extra_body: the local backend sends no request body — use infer.backend: openai');
    expect(problems({ infer: { backend: 'openai', decoding: { response_format: { type: 'json_object' } } } })).to.deep.equal([]);
  });
});
