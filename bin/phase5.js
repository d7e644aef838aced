#!/usr/bin/env node
// Entry point of the `phase5` CLI: registers tsx so the TypeScript sources run as they are.
// Before `npm install` the packages are missing: say so in one line instead of a module-resolution stack.

/** A package (not a file of this project) that cannot be found: the dependencies are not installed. */
function missingPackage(err) {
  if (err?.code === 'ERR_MODULE_NOT_FOUND') return /Cannot find package/.test(String(err.message));
  return err?.code === 'MODULE_NOT_FOUND' && !/Cannot find module '[./]/.test(String(err.message));
}

let main;
try {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('./cli/main.ts'));
} catch (err) {
  if (!missingPackage(err)) throw err;
  console.error('phase5: dependencies are not installed — run `npm run setup`');
  process.exit(1);
}
process.exitCode = await main(process.argv);
