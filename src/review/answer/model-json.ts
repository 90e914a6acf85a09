import { jsonrepair } from 'jsonrepair';

/**
 * JSON out of a model's free-text answer: plain, in a ```json fence, after some prose or a
 * `<think>` block, or slightly broken or cut at the output limit (repaired with jsonrepair).
 */
export type DecodedJson = { ok: true; value: unknown; repaired: boolean } | { ok: false; reason: string };

export function decodeModelJson(answer: string): DecodedJson {
  const candidates = jsonCandidates(answer);
  if (candidates.length === 0) return { ok: false, reason: answer.trim() === '' ? 'the answer is empty' : 'the answer contains no JSON object' };
  for (const candidate of candidates) {
    try {
      return { ok: true, value: JSON.parse(candidate) as unknown, repaired: false };
    } catch {
      // Try the next candidate, then repairs.
    }
  }
  let failure = '';
  for (const candidate of candidates) {
    try {
      return { ok: true, value: JSON.parse(jsonrepair(candidate)) as unknown, repaired: true };
    } catch (error) {
      failure ||= error instanceof Error ? error.message : String(error);
    }
  }
  return { ok: false, reason: `the JSON could not be repaired: ${failure}` };
}

/**
 * Where the JSON may be, best first: fenced blocks that hold an object or array, then the text from
 * the first `{` to the last `}`, then from the first `[` to the last `]`. A missing closing bracket
 * (an answer cut at the output limit) leaves the rest of the text, for jsonrepair to close.
 */
function jsonCandidates(answer: string): string[] {
  const text = answer.replace(/^\uFEFF/, '').replace(/<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi, '');
  const candidates: string[] = [];
  for (const fence of text.matchAll(/```[a-zA-Z]*[^\S\n]*\n?([\s\S]*?)(?:```|$)/g)) {
    const body = fence[1]!.trim();
    if (body.startsWith('{') || body.startsWith('[')) candidates.push(body);
  }
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = text.indexOf(open);
    if (start === -1) continue;
    const end = text.lastIndexOf(close);
    candidates.push(end > start ? text.slice(start, end + 1) : text.slice(start));
  }
  return candidates;
}

/** A model's answer as JSON: text is decoded (see `decodeModelJson`), an already parsed value taken as is. */
export function decodeAnswer(answer: unknown): DecodedJson {
  return typeof answer === 'string' ? decodeModelJson(answer) : { ok: true, value: answer, repaired: false };
}
