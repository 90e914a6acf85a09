/** Exit codes of decisions.md §17: 1 a finding at or above `--fail-on`, 2 any failure. */
export const EXIT_FINDINGS = 1;
export const EXIT_FAILURE = 2;

/** A failure the person can act on: one line naming the cause and what to do. Exits 2. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}
