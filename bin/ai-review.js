#!/usr/bin/env node
// The `ai-review` command (decisions.md §17). The project runs its TypeScript from source through
// tsx, as `npm start` does: register tsx's loader, then run the command from src/cli/.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
