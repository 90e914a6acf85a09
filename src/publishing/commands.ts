import { REVIEW_MODES, type ReviewMode } from '../db/schema/index.js';

/** A `/review` without a mode leaves it to the repository's `.ai-review.yml`, else `focused` (decisions.md §10). */
export type Command = { kind: 'review'; mode: ReviewMode | undefined } | { kind: 'ask'; question: string } | { kind: 'help' };

/** Who may command the App in a pull request (GitHub's `author_association`). */
export const COMMANDING_ASSOCIATIONS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

/** A verdict by reply (decisions.md §10): `/wrong`, `/wontfix` or `/helpful`, then an optional note. */
export const VERDICT_REPLY = /^\/(helpful|wrong|wontfix)\b\s*([\s\S]*)$/i;

const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A comment's command (decisions.md §8), or undefined when it is none: `/review [mode]`, `/ask
 * <question>` or `@<slug> <question>`, `/help`. Only the start of the comment counts, so a comment
 * that merely mentions a command is not one.
 */
export function parseCommand(body: string, slug: string): Command | undefined {
  const text = body.trim();
  const review = /^\/review(?:\s+(\S+))?\s*$/i.exec(text.split('\n')[0]!.trim());
  if (review) {
    const named = review[1]?.toLowerCase();
    if (named === undefined) return { kind: 'review', mode: undefined };
    return REVIEW_MODES.find((mode) => mode === named) ? { kind: 'review', mode: named as ReviewMode } : { kind: 'help' };
  }
  if (/^\/help\s*$/i.test(text)) return { kind: 'help' };
  const ask = new RegExp(`^(?:/ask|@${escape(slug)})\\b\\s*([\\s\\S]*)$`, 'i').exec(text);
  if (ask) {
    const question = ask[1]!.trim();
    return question === '' ? { kind: 'help' } : { kind: 'ask', question };
  }
  return undefined;
}

export function helpText(slug: string): string {
  return [
    'Commands (for the repository’s owners, members and collaborators):',
    '',
    '- `/review`: review the head commit again, in full (`/review quick`, `/review focused` or `/review deep` picks the mode).',
    `- \`/ask <question>\` or \`@${slug} <question>\`: ask about this pull request; the answer comes as a comment.`,
    '- `/help`: this list.',
    '',
    'Re-running the `AI review` check reviews that commit again. Reply `/wrong`, `/wontfix` or `/helpful` to an inline finding to tell the reviewer what you think of it.',
  ].join('\n');
}
