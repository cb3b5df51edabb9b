#!/usr/bin/env node
// The compiled CLI (npm run build, which npm ci runs through `prepare`). Development: npm run stampede:dev.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
