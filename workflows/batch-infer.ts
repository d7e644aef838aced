/**
 * The batch infer workflow (docs/batch.md): `--batch-out DIR` writes the batch files; `--batch-in FILE…` imports
 * outputs; `infer.backend: openai_batch` writes the files, sends each through the Batch API — one activity per
 * file, waiting up to the completion window with heartbeats, resumed by the batch id it recorded — and imports
 * what came back. Only paths and counts cross Temporal.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { BatchWorkflowResult } from '../src/stages/batch/types';
import { stageActivities, stageOptions } from './options';
import { setStep, trackProgress } from './progress';
import type { StageInput } from './types';

/** The Batch API activity: as long as a batch may take (the window and its finalizing), heartbeating all along. */
function remoteActivities(input: StageInput) {
  return proxyActivities<Activities>({ ...stageOptions(input.config, 'infer'), startToCloseTimeout: '72h' });
}

export async function batchInferWorkflow(input: StageInput): Promise<BatchWorkflowResult> {
  const p = trackProgress('infer');
  const acts = stageActivities(input.config, 'infer');
  const price = input.config.infer.price;
  const priced = price ? { price } : {};
  if (input.options.batchIn) {
    setStep(p, 'batch-in', 0, 1);
    const imported = await acts.importBatchOutputs({ input });
    setStep(p, 'done', 1, 1);
    return { in: imported, ...priced };
  }
  setStep(p, 'batch-out', 0, 1);
  const out = await acts.writeBatchFiles(input);
  if (input.options.batchOut || out.files.length === 0) {
    setStep(p, 'done', 1, 1);
    return { out, ...priced };
  }
  setStep(p, 'batches', 0, out.files.length, 'batches');
  let finished = 0;
  const remote = await Promise.all(
    out.files.map(async (entry) => {
      const r = await remoteActivities(input).runRemoteBatch({ input, dir: out.dir, entry });
      setStep(p, 'batches', ++finished, out.files.length, 'batches');
      return r;
    }),
  );
  setStep(p, 'batch-in', 0, 1);
  const imported = await acts.importBatchOutputs({ input, files: remote.flatMap((r) => r.outputs) });
  setStep(p, 'done', 1, 1);
  return { out, remote, in: imported, ...priced };
}
