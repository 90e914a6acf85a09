import { bestPrepareTime, ordinaryDiff } from './tokenizer-workloads.js';

/** `node --import tsx prepare-fresh-main.ts <runs>`: the ordinary diff's best preparation time in a fresh process, as JSON. */
const runs = Number(process.argv[2] ?? 3);
console.log(JSON.stringify(bestPrepareTime(ordinaryDiff(), runs)));
