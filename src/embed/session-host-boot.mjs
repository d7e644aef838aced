// Entry of an embedding session worker thread. Worker threads do not inherit the parent's tsx loader
// (Node 20), so register it here, then load the TypeScript body.
import { register } from 'tsx/esm/api';

register();
await import('./session-host.ts');
