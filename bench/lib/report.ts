/** One line per measurement, aligned, so a run reads as a table. */
export function report(scenario: string, figures: Record<string, string | number>) {
  const cells = Object.entries(figures).map(([name, value]) => `${name}=${typeof value === 'number' ? round(value) : value}`);
  console.log(`${scenario.padEnd(34)} ${cells.join('  ')}`);
}

const round = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : 1));
