import { optionsFrom } from '../analysis/stage';
import { analyzeStudy } from '../analysis/analyze';
import { defaultConfig } from '../test/helpers/default-pipeline';
const opts = await optionsFrom(defaultConfig(process.argv[2]), {});
await analyzeStudy({ ...opts, report: false, progress: 'silent', logFile: false });
