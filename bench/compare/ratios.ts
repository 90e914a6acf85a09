/** One figure of one scenario, measured once per round on each side. */
export interface FigureSamples {
  then: number[];
  today: number[];
}

export interface FigureRatio {
  /** Medians of each side's samples. */
  then: number;
  today: number;
  /** today / then of the medians; NaN when `then` is 0. */
  ratio: number;
  /** The lowest and highest today / then of the rounds, each round's pair measured back to back. */
  low: number;
  high: number;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * The ratio today / then of a figure, with its spread over the rounds. The two sides of a round
 * ran one after the other, so a round's ratio is the fairest single comparison on a loaded machine;
 * the spread of the rounds' ratios says how far to trust the median's.
 */
export function figureRatio({ then, today }: FigureSamples): FigureRatio {
  const rounds = Math.min(then.length, today.length);
  const perRound = Array.from({ length: rounds }, (_, index) => today[index]! / then[index]!).filter((ratio) => Number.isFinite(ratio));
  const medianThen = median(then);
  const medianToday = median(today);
  return {
    then: medianThen,
    today: medianToday,
    ratio: medianThen === 0 ? Number.NaN : medianToday / medianThen,
    low: perRound.length === 0 ? Number.NaN : Math.min(...perRound),
    high: perRound.length === 0 ? Number.NaN : Math.max(...perRound),
  };
}

const format = (value: number) => (Number.isNaN(value) ? '—' : Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2));

/** The table printed at the end: one row a figure. */
export function ratioTable(rows: Array<{ scenario: string; figure: string; samples: FigureSamples }>): string {
  const header = ['scenario', 'figure', 'then (median)', 'today (median)', 'today/then', 'spread of rounds'];
  const lines = rows.map(({ scenario, figure, samples }) => {
    const r = figureRatio(samples);
    return [scenario, figure, format(r.then), format(r.today), format(r.ratio), `${format(r.low)}–${format(r.high)}`];
  });
  const widths = header.map((cell, column) => Math.max(cell.length, ...lines.map((line) => line[column]!.length)));
  return [header, ...lines].map((line) => `| ${line.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`).join('\n');
}
