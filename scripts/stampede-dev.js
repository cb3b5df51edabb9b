#!/usr/bin/env node
// The CLI from the TypeScript sources through tsx's loader, no build needed: `npm run stampede:dev -- run …`.
// The tests run this, so they exercise src/ as it is, not the last build.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
