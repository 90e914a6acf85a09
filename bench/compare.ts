import { fileURLToPath } from 'node:url';
import { parseCompareArgs } from './compare/compare-args.js';
import { ratioTable, type FigureSamples } from './compare/ratios.js';
import { revisionTree } from './compare/revision-tree.js';
import { COMPARE_SCENARIOS, type Figures } from './compare/scenarios.js';
import { report } from './lib/report.js';
import { serversAvailable } from './lib/service-process.js';

/**
 * `npm run bench:compare -- <git-rev> [scenario…] [--rounds N]`: each scenario against the service
 * of `<git-rev>` ("then", built in a directory of its own) and of this working tree ("today"),
 * alternately (then/today, today/then, …) for N rounds (3 at least), on PostgreSQL + Redis; then
 * each figure's ratio today / then with the spread of the rounds. BENCH_DURATION sets the seconds
 * of each load run (default 10).
 */
const TODAY_ROOT = fileURLToPath(new URL('..', import.meta.url));
const duration = Number(process.env.BENCH_DURATION ?? 10);

let args;
try {
  args = parseCompareArgs(process.argv.slice(2), Object.keys(COMPARE_SCENARIOS));
  if (!Number.isFinite(duration) || duration <= 0) throw new Error(`BENCH_DURATION must be a positive number of seconds, not "${process.env.BENCH_DURATION}"`);
  if (!(await serversAvailable())) throw new Error('bench:compare runs on PostgreSQL + Redis (BENCH_* or TEST_* URLs, else the loopback defaults): unreachable');
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

const then = await revisionTree(args.revision);
console.log(`then: ${args.revision} (${then.sha.slice(0, 12)}, ${then.sharedModules ? "this tree's node_modules" : 'its own npm ci'}); today: ${TODAY_ROOT}`);
console.log(`${args.rounds} rounds of ${args.scenarios.join(', ')}; load runs of ${duration} s\n`);

const samples = new Map<string, Map<string, FigureSamples>>();
const record = (scenario: string, side: keyof FigureSamples, figures: Figures) => {
  const figuresOf = samples.get(scenario) ?? new Map<string, FigureSamples>();
  samples.set(scenario, figuresOf);
  for (const [figure, value] of Object.entries(figures)) {
    const entry = figuresOf.get(figure) ?? { then: [], today: [] };
    figuresOf.set(figure, entry);
    entry[side].push(value);
  }
};

for (let round = 0; round < args.rounds; round++) {
  // Alternate which side goes first, so a machine that slows down or speeds up favours neither.
  const sides: Array<keyof FigureSamples> = round % 2 === 0 ? ['then', 'today'] : ['today', 'then'];
  for (const scenario of args.scenarios) {
    for (const side of sides) {
      const figures = await COMPARE_SCENARIOS[scenario]!({ root: side === 'then' ? then.root : TODAY_ROOT, duration });
      report(`round ${round + 1} ${scenario} [${side}]`, figures);
      record(scenario, side, figures);
    }
  }
}

const rows = [...samples].flatMap(([scenario, figures]) => [...figures].map(([figure, figureSamples]) => ({ scenario, figure, samples: figureSamples })));
console.log(`\ntoday / then, ${args.rounds} rounds (median; spread = lowest–highest ratio of a round's pair)\n`);
console.log(ratioTable(rows));
