import type { LanguageModelV3 } from '@ai-sdk/provider';
import { APICallError, generateText, NoObjectGeneratedError, Output, stepCountIs } from 'ai';
import { decodeModelJson } from '../answer/model-json.js';
import type { BuiltPrompt } from './prompts.js';
import { parseReviewOutput, reviewOutputSchema, type ReviewOutput } from '../answer/review-output.js';
import { parseVerificationOutput, verificationOutputSchema, type VerificationOutput } from '../answer/verification.js';
import { MAX_TOOL_CALLS, type ReviewTools } from './review-tools.js';

/** The model answered, but not with something this service can use. */
export class ModelAnswerError extends Error {
  override name = 'ModelAnswerError';
}

// Built once: turning the schemas into JSON Schema for the provider is not free.
const REVIEW_OUTPUT = Output.object({ schema: reviewOutputSchema });
const VERIFICATION_OUTPUT = Output.object({ schema: verificationOutputSchema });

/**
 * Structured output first; a model that answers with fenced or slightly broken JSON instead is
 * repaired and parsed by the tolerant parser. Transient provider errors are retried by the SDK.
 */
async function askForJson(model: LanguageModelV3, prompt: BuiltPrompt, output: typeof REVIEW_OUTPUT | typeof VERIFICATION_OUTPUT, abortSignal?: AbortSignal, tools?: ReviewTools): Promise<unknown> {
  try {
    // With tools, each step is a generation (metered as any); the tools refuse calls past the
    // limit, and the step count bounds a model that keeps calling anyway.
    const withTools = tools ? { tools, stopWhen: stepCountIs(MAX_TOOL_CALLS + 2) } : {};
    const result = await generateText({ model, system: prompt.system, prompt: prompt.prompt, output, maxRetries: 2, abortSignal, ...withTools });
    return result.output;
  } catch (error) {
    if (!NoObjectGeneratedError.isInstance(error) || error.text === undefined) throw error;
    const decoded = decodeModelJson(error.text);
    if (!decoded.ok) throw new ModelAnswerError(`The model's answer is not valid JSON (${decoded.reason})`);
    return decoded.value;
  }
}

/**
 * The review of one chunk. With `tools` (deep mode), the model may read more of the repository; a
 * model or provider that refuses tools (a 400 or 404 naming them) is asked again without them.
 */
export async function askForReview(model: LanguageModelV3, prompt: BuiltPrompt, options: { abortSignal?: AbortSignal; tools?: ReviewTools; withoutTools?: BuiltPrompt } = {}): Promise<ReviewOutput> {
  const { abortSignal, tools } = options;
  const answer = await askForJson(model, prompt, REVIEW_OUTPUT, abortSignal, tools).catch((error: unknown) => {
    if (!tools || !refusesTools(error)) throw error;
    return askForJson(model, options.withoutTools ?? prompt, REVIEW_OUTPUT, abortSignal);
  });
  const parsed = parseReviewOutput(answer);
  if (!parsed.ok) throw new ModelAnswerError(`The model's answer is not a review (${parsed.reason})`);
  return parsed.review;
}

export async function askForVerification(model: LanguageModelV3, prompt: BuiltPrompt, abortSignal?: AbortSignal): Promise<VerificationOutput> {
  const parsed = parseVerificationOutput(await askForJson(model, prompt, VERIFICATION_OUTPUT, abortSignal));
  if (!parsed.ok) throw new ModelAnswerError(`The model's verification is not usable (${parsed.reason})`);
  return parsed.verification;
}

/** A provider saying the model cannot call tools (OpenAI-compatible servers answer 400 or 404 naming them). */
function refusesTools(error: unknown): boolean {
  return APICallError.isInstance(error) && (error.statusCode === 400 || error.statusCode === 404) && /tool|function/i.test(`${error.message} ${error.responseBody ?? ''}`);
}
