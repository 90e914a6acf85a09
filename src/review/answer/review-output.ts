import { z } from 'zod';
import { decodeAnswer } from './model-json.js';
import { commentEntries, isRecord, normalizeComment, normalizeReview, RISKS, SEVERITIES, usesFractionScale } from './review-output-normalize.js';

export { RISKS, SEVERITIES, type Risk, type Severity } from './review-output-normalize.js';

/** Non-empty after trimming; a refinement, so the JSON schema stays plain (strict modes reject minLength). */
const filled = (description: string) => z.string().refine((value) => value.trim().length > 0, 'must not be empty').describe(description);

const commentObject = z.object({
  file: filled('Path of the file exactly as after `##` in the diff.'),
  line: z.number().int().min(1).describe('First new-file line number of the problem, as printed before `+` or context lines in the diff.'),
  endLine: z.number().int().min(1).describe('Last new-file line number of the problem (same as line for one line), in the same hunk.'),
  severity: z.enum(SEVERITIES).describe('CRITICAL, MAJOR, MINOR or INFO, as defined in the instructions.'),
  confidence: z.number().int().min(0).max(100).describe('0-100: how sure you are that this is a real problem, as defined in the instructions.'),
  title: filled('One line naming the problem, under 80 characters.'),
  comment: filled('What is wrong and why, in a few sentences, citing the code.'),
  failureScenario: z.string().describe('Concrete inputs or events that make it fail, and what the user sees.'),
  suggestedFix: z.string().describe('The change to make, as code or precise steps.'),
  replacement: z
    .string()
    .nullable()
    .describe('Exact code that replaces lines line..endLine as they are in the new file (whole lines, indentation kept); null unless the fix is exactly that.'),
});

/** One finding. Lenient reading (see review-output-normalize.ts), strict result. */
export const reviewCommentSchema = z.preprocess((value) => normalizeComment(value), commentObject);
export type ReviewComment = z.output<typeof reviewCommentSchema>;

const summarySchema = z.object({
  overview: z.string().describe('What the pull request changes, in two to four sentences.'),
  intent: z.string().describe('Why, as far as the code and description tell.'),
  risk: z.enum(RISKS).describe('low, medium, high or critical: the risk of merging as is.'),
  findingsCount: z.number().int().min(0).describe('The number of comments.'),
});

const unit = (description: string) => z.number().min(0).max(1).nullable().describe(description);

/**
 * The raw review JSON (stored as the review's `reviewRawJson`). Give it to the AI SDK as is
 * (`generateObject({schema: reviewOutputSchema})`, `Output.object({schema})`): the JSON schema the
 * model sees is the strict one (every field required, enums, no `minLength`, so OpenAI's strict
 * mode accepts it), while validation reads common deviations and drops, rather than rejects,
 * findings that have no file or line. `summary.findingsCount` always equals `comments.length`.
 */
export const reviewOutputSchema = z
  .preprocess(
    normalizeReview,
    z.object({
      summary: summarySchema,
      comments: z.preprocess(dropInvalidComments, z.array(reviewCommentSchema)).describe('The findings; an empty array when there are none.'),
      confidence: z
        .object({
          overall: unit('0-1: confidence that the change is correct and safe to merge as is (the dashboard score).'),
          performance: unit('0-1: confidence that the change adds no performance problem.'),
          security: unit('0-1: confidence that the change adds no security problem.'),
        })
        .describe('Null only when you cannot judge.'),
      agenticFixPrompt: z.string().nullable().describe('A self-contained instruction for an AI coding agent to fix the findings; null when there are none.'),
    }),
  )
  .transform((review) => ({ ...review, summary: { ...review.summary, findingsCount: review.comments.length } }));

export type ReviewOutput = z.output<typeof reviewOutputSchema>;

function dropInvalidComments(value: unknown): unknown {
  return Array.isArray(value) ? value.filter((comment) => reviewCommentSchema.safeParse(comment).success) : value;
}

export interface DroppedComment {
  /** Position in the model's `comments` array. */
  index: number;
  reason: string;
}

export type ReviewParseResult =
  | { ok: true; review: ReviewOutput; droppedComments: DroppedComment[]; repaired: boolean }
  | { ok: false; reason: string };

/**
 * Reads a model's review: a string (plain JSON, JSON in a ```json fence, JSON after some prose or a
 * `<think>` block, slightly broken or truncated JSON, repaired with jsonrepair) or an already
 * parsed value (`NoObjectGeneratedError.text` is a string; a provider's parsed object works too).
 */
export function parseReviewOutput(raw: unknown): ReviewParseResult {
  const decoded = decodeAnswer(raw);
  if (!decoded.ok) return decoded;
  const parsed = reviewOutputSchema.safeParse(decoded.value);
  if (!parsed.success) return { ok: false, reason: `the review does not match the schema: ${issues(parsed.error)}` };
  return { ok: true, review: parsed.data, droppedComments: droppedComments(decoded.value), repaired: decoded.repaired };
}

function droppedComments(value: unknown): DroppedComment[] {
  const record = Array.isArray(value) ? { comments: value } : isRecord(value) ? value : {};
  const comments = commentEntries(record);
  const fractionScale = usesFractionScale(comments);
  const dropped: DroppedComment[] = [];
  comments.forEach((comment, index) => {
    const result = reviewCommentSchema.safeParse(normalizeComment(comment, fractionScale));
    if (!result.success) dropped.push({ index, reason: issues(result.error) });
  });
  return dropped;
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'value'}: ${issue.message}`)
    .join('; ');
}
