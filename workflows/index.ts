/**
 * Workflows: orchestration only (deterministic, no I/O), one workflow per file. Each stage is its own workflow
 * with a stable id (`phase5-<run>-<stage>`), so the CLI can start a single stage or the whole study, and
 * re-running a command attaches to the running (or finished) workflow instead of starting a duplicate.
 * Activities are routed to the CPU or GPU task queue named in the config, per stage (options.ts).
 * The worker bundles this file: every function exported here is a workflow type, named by its export name —
 * so helpers (windows.ts, options.ts, progress.ts, arm-totals.ts) are not re-exported.
 *
 * VERSIONING RULE — read before changing a workflow. A running workflow is resumed by replaying its history
 * against the code of the worker that picks it up, so new code must issue the same commands as the old code
 * did, in the same order, for every history that may still be running. Versioning starts at 1.0: the
 * histories in test/replay/histories/v1-* are the first release's (v2-*: the same study with the config's one
 * vocabulary), and no older branch is kept.
 *  - From here, a change that alters the commands a workflow issues (an activity, child workflow or timer
 *    added, removed or reordered; different arguments that change which activities run) goes under a patch —
 *    the SDK's `patched` call with a new id, the old code kept in its `else` branch — or becomes a new workflow
 *    type. The old branch stays until no history without the marker can still be running; then
 *    `deprecatePatch` with that id, later remove both.
 *  - Changes that issue the same commands (progress fields, logging, result shaping) need no patch.
 *  - Then record new histories with a new prefix (`npm run record-histories -- v2`) and keep the old
 *    recordings: test/replay/replay.test.ts replays both, so the old branch stays covered.
 *  - Workflow type names are the export names below: renaming one, or moving it out of these exports, breaks
 *    the replay of every history of that type.
 */
export { progressQuery } from './progress';
export * from './build';
export * from './export';
export * from './infer';
export * from './infer-arm';
export * from './batch-infer';
export * from './analyze';
export * from './study';
export * from './doctor';
export * from './probe';
