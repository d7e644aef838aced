/** `phase5 plan`'s probe figures: per job its texts, requests (continuation + likelihood) and the prompts' characters. */
import assert from 'node:assert/strict';
import { optionsFrom } from '../../../src/stages/probe/options';
import { probePlan } from '../../../src/stages/probe/plan';
import { probeStudy } from '../../helpers/probe-study';

describe('probe plan', () => {
  it('counts two texts per line (book and shuffled), one per control line, two requests each with the likelihood test', async () => {
    const { config } = probeStudy(
      { Book: ['a b c d', 'e f g h', 'i j k l'], Unpub: ['m n o p'] },
      { baseUrl: 'http://127.0.0.1:9/v1', probe: { control: 'Unpub' } },
    );
    const plan = await probePlan(optionsFrom(config, {}));
    assert.deepEqual(
      plan.map((j) => [j.dataset, j.texts, j.requests, j.prompt_chars]),
      [
        ['Book', 6, 12, 6 * 3 + 6 * 7],
        ['Unpub', 1, 2, 3 + 7],
      ],
    );
    const off = probeStudy({ Book: ['a b c d'] }, { baseUrl: 'http://127.0.0.1:9/v1', probe: { likelihood: false } });
    assert.deepEqual(
      (await probePlan(optionsFrom(off.config, {}))).map((j) => j.requests),
      [2],
    );
  });
});
