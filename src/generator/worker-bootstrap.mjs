// Worker threads do not inherit the CLI's tsx loader (bin/stampede.js registers it through its API,
// not through execArgv), so each worker registers it here and then loads the TypeScript entry.
import { register } from 'tsx/esm/api';

register();
await import('./worker-entry.ts');
