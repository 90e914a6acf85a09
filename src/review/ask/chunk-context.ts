import type { ContextBlock } from '../../code-context/context-block.js';
import { countTokens } from '../prepare/tokens.js';
import { fitContext, type FittedContext } from './context-section.js';
import { PROMPT_SLACK, type BuiltPrompt } from './prompts.js';
import { toolRoomOf } from './review-tools.js';

/** Tokens a prompt of `promptTokens` leaves for context within the model's context length and the output reserve. */
export function promptRoom(promptTokens: number, contextLength: number, outputReserve: number): number {
  return contextLength - promptTokens - outputReserve - PROMPT_SLACK;
}

/** A built prompt's tokens, counted whole (the verification's prompt; a chunk's is `reviewPromptTokens`). */
export const builtPromptTokens = (built: BuiltPrompt) => countTokens(built.system) + countTokens(built.prompt);

/** A chunk's context fitted to the room its prompt leaves; with tools, their answers keep part of it. */
export function fitChunkContext(blocks: readonly ContextBlock[], room: number, tools: boolean, commit: string | null): FittedContext {
  return fitContext(blocks, room - (tools ? toolRoomOf(room) : 0), commit);
}

/** Whether every enclosing scope got its fullest rendering (whole, or as whole as a scope that long is ever shown). */
export function scopesFit(blocks: readonly ContextBlock[], fitted: FittedContext): boolean {
  const scopes = blocks.filter((block) => block.kind === 'scope').length;
  return fitted.shown.filter((block) => block.kind === 'scope' && !block.elided).length === scopes;
}
