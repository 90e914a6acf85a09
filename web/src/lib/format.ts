/** `$0.04` — the allowance is shown as `$X.XX of $Y.YY` (decisions.md §9). */
export function usd(value: number): string {
  return `$${(Math.round(value * 100) / 100).toFixed(2)}`;
}

export function allowanceText(used: number, limit: number): string {
  return `${usd(used)} of ${usd(limit)}`;
}

/** A review score (0–100) as shown: whole numbers, and a tone for its colour. */
export function scoreDisplay(score: number | null | undefined): { text: string; tone: 'good' | 'fair' | 'poor' | 'none' } {
  if (score === null || score === undefined || !Number.isFinite(score)) return { text: '–', tone: 'none' };
  const rounded = Math.round(score);
  return { text: String(rounded), tone: rounded >= 85 ? 'good' : rounded >= 65 ? 'fair' : 'poor' };
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function dateTime(value: string | null | undefined): string {
  if (!value) return '–';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '–' : dateFormat.format(date);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function ago(value: string | null | undefined, now = Date.now()): string {
  if (!value) return '–';
  const seconds = Math.round((new Date(value).getTime() - now) / 1000);
  const steps: Array<[Intl.RelativeTimeFormatUnit, number]> = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of steps) if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  return 'just now';
}

/** The pipeline's state in words, while a review runs (decisions.md §6). */
export function pipelineStep(state: string | null | undefined): string {
  switch (state) {
    case 'WEBHOOK_RECEIVED':
      return 'Queued';
    case 'PAYLOAD_SANITIZED':
      return 'Reading the diff';
    case 'PR_CONTENT_EXTRACTED':
      return 'The model is reviewing';
    case 'PROCESSING_COMPLETED':
      return 'Completed';
    case 'PROCESSING_FAILED':
      return 'Failed';
    default:
      return 'Pending';
  }
}

/** "1 file", "3 files": a count with its noun, plural when it is not one. */
export const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
