/** Words that carry no meaning in a finding's title ("Missing null check on user" = "Missing null check for user"). */
const STOP_WORDS = new Set(
  'a an the of in on for to is are be been being and or with this that these those it its at by from as not no may might can could should would will when if via into than then there here which who'.split(' '),
);

/** Lowercase words without punctuation, stop words and a plural `s`. */
export function words(text: string): Set<string> {
  const result = new Set<string>();
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}_]+/u)) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    result.add(word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);
  }
  return result;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Near-identical: 70 % of the meaningful words shared, in the titles or in the comments. */
export const SAME_PROBLEM_THRESHOLD = 0.7;

export interface Worded {
  title: string;
  comment?: string;
}

/** Two findings say the same thing (the caller has already checked they are on the same lines). */
export function sameProblem(a: Worded, b: Worded): boolean {
  if (jaccard(words(a.title), words(b.title)) >= SAME_PROBLEM_THRESHOLD) return true;
  if (!a.comment || !b.comment) return false;
  return jaccard(words(a.comment), words(b.comment)) >= SAME_PROBLEM_THRESHOLD;
}
