// Mocha's spec reporter plus one plain closing line ("N passed, N failed, N skipped") that CI tooling reads.
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = this.stats;
      process.stdout.write(`\n${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
    });
  }
}
module.exports = SummaryReporter;
