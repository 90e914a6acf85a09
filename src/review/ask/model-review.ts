import type { LanguageModelV3 } from '@ai-sdk/provider';
import { generateText, NoObjectGeneratedError, Output } from 'ai';
import { decodeModelJson } from '../answer/model-json.js';
import type { BuiltPrompt } from './prompts.js';
import { parseReviewOutput, reviewOutputSchema, type ReviewOutput } from '../answer/review-output.js';
import { parseVerificationOutput, verificationOutputSchema, type VerificationOutput } from '../answer/verification.js';

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
async function askForJson(model: LanguageModelV3, prompt: BuiltPrompt, output: typeof REVIEW_OUTPUT | typeof VERIFICATION_OUTPUT, abortSignal?: AbortSignal): Promise<unknown> {
  try {
    const result = await generateText({ model, system: prompt.system, prompt: prompt.prompt, output, maxRetries: 2, abortSignal });
    return result.output;
  } catch (error) {
    if (!NoObjectGeneratedError.isInstance(error) || error.text === undefined) throw error;
    const decoded = decodeModelJson(error.text);
    if (!decoded.ok) throw new ModelAnswerError(`The model's answer is not valid JSON (${decoded.reason})`);
    return decoded.value;
  }
}

export async function askForReview(model: LanguageModelV3, prompt: BuiltPrompt, abortSignal?: AbortSignal): Promise<ReviewOutput> {
  const parsed = parseReviewOutput(await askForJson(model, prompt, REVIEW_OUTPUT, abortSignal));
  if (!parsed.ok) throw new ModelAnswerError(`The model's answer is not a review (${parsed.reason})`);
  return parsed.review;
}

export async function askForVerification(model: LanguageModelV3, prompt: BuiltPrompt, abortSignal?: AbortSignal): Promise<VerificationOutput> {
  const parsed = parseVerificationOutput(await askForJson(model, prompt, VERIFICATION_OUTPUT, abortSignal));
  if (!parsed.ok) throw new ModelAnswerError(`The model's verification is not usable (${parsed.reason})`);
  return parsed.verification;
}
