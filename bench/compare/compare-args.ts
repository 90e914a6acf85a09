/** What `npm run bench:compare -- <git-rev> [scenario…] [--rounds N]` asks for. */
export interface CompareArgs {
  revision: string;
  scenarios: string[];
  rounds: number;
}

export const MIN_ROUNDS = 3;

/**
 * Parses the command line (the arguments after `--`). Every scenario when none is named; unknown
 * names, a missing revision and fewer than MIN_ROUNDS rounds are refused with a message.
 */
export function parseCompareArgs(argv: string[], known: readonly string[], defaultRounds = MIN_ROUNDS): CompareArgs {
  const positional: string[] = [];
  let rounds = defaultRounds;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const inline = /^--rounds=(.*)$/.exec(arg);
    if (arg === '--rounds' || inline !== null) {
      const value = inline?.[1] ?? argv[++index];
      rounds = Number(value);
      if (!Number.isInteger(rounds) || rounds < MIN_ROUNDS) throw new Error(`--rounds must be an integer of at least ${MIN_ROUNDS}, not "${value ?? ''}"`);
    } else if (arg.startsWith('--')) {
      throw new Error(`Unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  const [revision, ...named] = positional;
  if (revision === undefined) throw new Error(`Usage: npm run bench:compare -- <git-rev> [${known.join('|')}]… [--rounds N]`);
  const unknown = named.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`Unknown scenario${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Scenarios: ${known.join(', ')}`);
  return { revision, scenarios: named.length > 0 ? [...new Set(named)] : [...known], rounds };
}
