import { clearMergeCache, countTokens as countO200k, setMergeCacheSize } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Token counts with the o200k_base encoding (GPT-4o and later). Other vendors' tokenizers differ
 * by some percent; the caller's output reserve absorbs that.
 *
 * A diff may contain `<|endoftext|>` and similar (a tokenizer's own repository): gpt-tokenizer
 * throws on special tokens by default, here they are counted as the plain text they are.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * gpt-tokenizer memoizes the merges of each word it has seen, 100,000 of them by default, in a
 * `Map` it keeps in LRU order by deleting its oldest key and re-inserting on a hit. Once one large
 * diff of unique words (a data file, random identifiers) has filled it, every later miss pays an
 * eviction that walks over the deleted entries V8 keeps in the table until it is compacted, and a
 * worker that runs for weeks stays slow (an ordinary 5 MB diff took twice its fresh time). A small
 * cache keeps the memory bounded. Measured on o200k (CPU ms for 2 MB of ordinary diff / 0.6 MB of
 * unique words): no cache 165 / 937, 1,000 entries 105 / 938, 4,000 96 / 994, 10,000 103 / 1,638,
 * 100,000 (the default, once full) 6,609 for the unique words: 4,000 holds the words one review
 * repeats (keywords, identifiers, indentation) and costs unique words almost nothing.
 */
export const MERGE_CACHE_ENTRIES = 4_000;
setMergeCacheSize(MERGE_CACHE_ENTRIES);

/**
 * The cache is emptied (its deleted entries with it) once this much text was counted since it was
 * last emptied: after a large or pathological input, never between ordinary reviews, which keep the
 * words of the constant prompt and of the code they share warm (emptied before every review, a
 * 38 KB diff cost twice the CPU: issue 18).
 */
export const CLEAR_AFTER_CHARS = 1_000_000;
let charsSinceClear = 0;

/** Called before each review: forgets the words of earlier inputs if they were many (see CLEAR_AFTER_CHARS). */
export function resetTokenCounting(): void {
  if (charsSinceClear < CLEAR_AFTER_CHARS) return;
  clearMergeCache();
  charsSinceClear = 0;
}

/** Exact count. About 20 MB/s: fine for a prompt, wasteful for a 5 MB file that is over any budget. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  charsSinceClear += text.length;
  return countO200k(text, PLAIN_TEXT);
}

/**
 * Counts of texts that recur from review to review (the prompt's fixed sections: instructions to
 * the model, the mode prompt, a user's system prompt, a repository's instructions), kept by text:
 * tokenizing them again cost every review about a fifth of its preparation (issue 18). Bounded
 * by entries; emptied when full.
 */
const RECURRING_ENTRIES = 256;
const recurring = new Map<string, number>();

/** `countTokens` for a text that recurs across reviews: counted once, then remembered. */
export function countRecurringTokens(text: string): number {
  let tokens = recurring.get(text);
  if (tokens === undefined) {
    if (recurring.size >= RECURRING_ENTRIES) recurring.clear();
    tokens = countTokens(text);
    recurring.set(text, tokens);
  }
  return tokens;
}

/**
 * o200k averages 3.5–4.5 characters per token on code and prose; a text needs runs of repeated
 * symbols to reach 16. So a text of more than `16 × limit` characters is taken as over the limit
 * without reading it. If that is ever wrong, the text is split more than needed, never overfilled.
 */
export const MAX_CHARS_PER_TOKEN = 16;

/**
 * Code and prose rarely average more than this many characters a token: a text this long usually
 * holds more than `limit` tokens in its first lines already.
 */
const PROBE_CHARS_PER_TOKEN = 6;

/**
 * The exact count when the text fits in `limit` tokens; for a larger text, some count over `limit`.
 * A text far larger is not tokenized at all (a rough estimate known to exceed `limit`); a text that
 * may be over is first counted up to the end of the line around `6 × limit` characters, and when
 * that much is over the limit the rest is not read (a prefix ending at a line's end never has more
 * tokens than the whole: the pieces the tokenizer splits a text into do not cross a line's end, but
 * for newlines that merge). The cost is bounded by `limit`, not by the text: fitting a chunk's
 * context counted each long scope whole to learn only that it did not fit its share.
 */
export function countTokensUpTo(text: string, limit: number): number {
  if (text.length > limit * MAX_CHARS_PER_TOKEN) return Math.max(limit + 1, estimateTokens(text));
  const probe = text.length > limit * PROBE_CHARS_PER_TOKEN ? text.lastIndexOf('\n', limit * PROBE_CHARS_PER_TOKEN) : -1;
  if (probe > 0) {
    const head = countTokens(text.slice(0, probe + 1));
    if (head > limit) return head;
  }
  return countTokens(text);
}

/** A quick estimate (characters / 4) for sizes shown to people or logged; not for budgets. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
