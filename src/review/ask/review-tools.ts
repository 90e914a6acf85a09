import { tool } from 'ai';
import { z } from 'zod';
import type { CodeIndex } from '../../code-context/code-index.js';
import { findDefinitionAnswer, findReferencesAnswer, readFileAnswer, searchAnswer, type ToolAnswer } from '../../code-context/code-tools.js';
import { replaceRefusedCharacters } from '../../lib/text-hygiene.js';
import { countTokens, countTokensUpTo } from '../prepare/tokens.js';

/** decisions.md §11: deep mode's calls per chunk at most, and the tokens one answer may take. */
export const MAX_TOOL_CALLS = 8;
export const MAX_TOOL_ANSWER_TOKENS = 1_000;
/** The tools' answers are kept this share of a prompt's room, at most what 8 full answers take; the code context gets the rest. */
const TOOL_ROOM_SHARE = 0.25;

export function toolRoomOf(room: number): number {
  return Math.min(MAX_TOOL_CALLS * (MAX_TOOL_ANSWER_TOKENS + 100), Math.floor(room * TOOL_ROOM_SHARE));
}

/** Per call, besides its answer: the call itself and the message framing. */
const CALL_OVERHEAD_TOKENS = 80;

/** One tool call of a review, as recorded in it. */
export interface ToolCallRecord {
  chunk: number;
  tool: string;
  input: Record<string, unknown>;
  /** Tokens of the answer as given to the model (after the cap), 0 for a refusal. */
  tokens: number;
  refused?: string;
}

// Built once: each chunk's tools differ only in the snapshot and the budget.
const readFileInput = z.object({
  path: z.string().max(1024).describe('Path relative to the repository root'),
  startLine: z.number().int().min(1).optional(),
  endLine: z.number().int().min(1).optional(),
});
const symbolInput = z.object({ symbol: z.string().min(1).max(200).describe('A function, method, class or type name; Class.method or object.method (req.get) puts the definitions on that class or object first') });
const searchInput = z.object({ text: z.string().min(1).max(200).describe('Exact text to find'), pathGlob: z.string().max(200).optional().describe('Only files matching this glob, e.g. src/**/*.py') });

/**
 * The tools of one chunk's review, over the head commit's snapshot. At most `MAX_TOOL_CALLS` calls
 * are answered (later ones are told to answer without them), each answer capped at
 * `MAX_TOOL_ANSWER_TOKENS` and at what is left of `room`, the tokens the prompt leaves: the request
 * never grows past the model's context. Every call is recorded in `calls`.
 */
export function reviewTools(index: CodeIndex, chunk: number, room: number, calls: ToolCallRecord[]) {
  let left = room;
  const run = async (name: string, given: Record<string, unknown>, answer: () => Promise<ToolAnswer>): Promise<string> => {
    // Recorded in the review (jsonb): what the model wrote may hold characters PostgreSQL refuses.
    const input = Object.fromEntries(Object.entries(given).map(([key, value]) => [key, typeof value === 'string' ? replaceRefusedCharacters(value) : value]));
    const made = calls.filter((call) => call.chunk === chunk).length;
    if (made >= MAX_TOOL_CALLS || left < CALL_OVERHEAD_TOKENS * 2) {
      const refused = made >= MAX_TOOL_CALLS ? `the limit of ${MAX_TOOL_CALLS} tool calls is reached` : 'no room is left in the context';
      calls.push({ chunk, tool: name, input, tokens: 0, refused });
      return `Refused: ${refused}. Give your review now.`;
    }
    // Counted before the answer: the calls of one step run at once, and each must see the others.
    const record: ToolCallRecord = { chunk, tool: name, input, tokens: 0 };
    calls.push(record);
    const result = await answer().catch((error: unknown) => ({ error: `failed: ${error instanceof Error ? error.message : String(error)}` }));
    const text = 'error' in result ? result.error : capped(result.text, Math.min(MAX_TOOL_ANSWER_TOKENS, left - CALL_OVERHEAD_TOKENS));
    record.tokens = countTokens(text);
    left -= record.tokens + CALL_OVERHEAD_TOKENS;
    if ('error' in result) record.refused = replaceRefusedCharacters(result.error);
    return text;
  };
  return {
    read_file: tool({
      description: 'Read lines of a file of the repository at the reviewed commit (300 lines at most per call).',
      inputSchema: readFileInput,
      execute: (input) => run('read_file', input, () => readFileAnswer(index, input)),
    }),
    find_definition: tool({
      description: 'Find where a function, method, class or type is defined in the repository, with its signature and doc comment.',
      inputSchema: symbolInput,
      execute: (input) => run('find_definition', input, () => findDefinitionAnswer(index, input)),
    }),
    find_references: tool({
      description: 'Find the lines of the repository that call a function or method.',
      inputSchema: symbolInput,
      execute: (input) => run('find_references', input, () => findReferencesAnswer(index, input)),
    }),
    search: tool({
      description: 'Find lines of the repository holding an exact text, optionally only in files matching a glob.',
      inputSchema: searchInput,
      execute: (input) => run('search', input, () => searchAnswer(index, input)),
    }),
  };
}

export type ReviewTools = ReturnType<typeof reviewTools>;

/** The text cut to `limit` tokens, marked when cut. */
function capped(text: string, limit: number): string {
  if (countTokensUpTo(text, limit) <= limit) return text;
  let chars = Math.min(text.length, limit * 3);
  while (chars > 0 && countTokens(text.slice(0, chars)) > limit - 20) chars = Math.floor(chars * 0.8);
  return `${text.slice(0, chars)}\n… [answer cut at ${limit} tokens]`;
}
