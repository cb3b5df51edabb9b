// Worker threads do not inherit the tsx loader the CLI registered through its API (bin/stampede.js),
// so a thread that runs TypeScript starts here: register tsx, then load the module named last on argv.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[process.argv.length - 1]);
