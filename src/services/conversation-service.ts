import { personal, pullRequestOwner } from '../domain/owners.js';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { APICallError, generateText, stepCountIs, streamText, type LanguageModelUsage, type ModelMessage } from 'ai';
import type { ModelChoice, ModelRouter } from '../ai/model-router.js';
import type { AiConversation, PullRequest } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import type { Logger } from '../lib/logger.js';
import type { ConversationRepository } from '../repositories/conversation-repository.js';
import type { PullRequestRepository } from '../repositories/pull-request-repository.js';
import type { PullRequestCode } from './pull-request-code.js';
import type { PullRequestDiffs } from './pull-request-diffs.js';
import type { CodeHosts } from '../code-hosts/code-hosts.js';
import { firstWords, historyMessages, systemPrompt } from './chat-context.js';
import { chatTools, pullRequestScope, userScope, type ChatScope } from './chat-tools.js';
import type { feedbackBody, historyItem } from '../routes/conversation/conversation-schemas.js';

export type ChatEvent =
  | { conversationId: string }
  | { type: 'content'; content: string }
  | { type: 'tool-call'; toolName: string; toolCallId: string; input: unknown }
  | { type: 'tool-result'; toolName: string; toolCallId: string; output: unknown }
  | { type: 'error'; error: string };

export interface ChatInput {
  message: string;
  prId?: string;
  conversationId?: string;
  llmModel?: string;
  customModelData?: { providerId?: string; modelProviderName?: string };
}

export interface ConversationServiceDeps {
  conversations: ConversationRepository;
  pullRequests: PullRequestRepository;
  models: ModelRouter;
  diffs: PullRequestDiffs;
  code: PullRequestCode;
  /** Each pull request's host: how the chat names it. */
  hosts: () => Pick<CodeHosts, 'of'>;
  log: Logger;
}

/** Tool-using steps one answer may take (each tool result goes back to the model). */
const MAX_STEPS = 5;
const HISTORY_MESSAGES = 20;
const DEFAULT_CONTEXT = 32_000;

/** Chat about pull requests: streamed, tool-using, saved and accounted. */
export class ConversationService {
  constructor(private readonly deps: ConversationServiceDeps) {}

  /**
   * Everything that can fail with a status (an unknown thread or pull request, no usable model:
   * 402) fails here, before the stream starts. The events then follow; an error after that point
   * becomes an `error` event, and the exchange is saved whatever happened.
   */
  /**
   * `command`: a pull-request comment's `/ask` answered through the chat (usage records tell them
   * apart), about the pull request the code host named (whose owner pays, though `userId`, its
   * stored user, may not be a member of its organization), attributed in an organization to the
   * member who wrote it (null: none, decisions.md §15). Its tools read that pull request only.
   */
  async open(userId: string, input: ChatInput, abortSignal: AbortSignal, command?: { pr: PullRequest; memberId: string | null }): Promise<AsyncGenerator<ChatEvent>> {
    const kind = command === undefined ? 'chat' : 'command';
    // The reads run at once (they are on the way to the first token) and are awaited in a fixed
    // order, so a request with several faults always gets the same answer: thread, pull request, model.
    // A chat is personal (decisions.md §15); a command answers for the pull request's owner, so its
    // model waits for the pull request (below).
    const resolving = command === undefined ? this.deps.models.resolve({ owner: personal(userId), model: input.llmModel, provider: input.customModelData }) : undefined;
    resolving?.catch(() => undefined);
    const existing = input.conversationId === undefined ? undefined : await this.deps.conversations.findOwned(userId, input.conversationId);
    if (input.conversationId !== undefined && existing === undefined) throw new AppError('NOT_FOUND', 'No such conversation');
    const loadingHistory = existing === undefined ? Promise.resolve([]) : this.deps.conversations.messages(userId, existing.id, undefined, HISTORY_MESSAGES);
    loadingHistory.catch(() => undefined);
    const pr = command?.pr ?? (await this.connectedPullRequest(userId, input.prId, existing));
    const owner = pr === undefined ? personal(userId) : pullRequestOwner(pr);
    const resolved = await (resolving ?? this.deps.models.resolve({ owner, memberId: command?.memberId ?? null, model: input.llmModel, provider: input.customModelData }));
    const choice = { ...resolved, model: resolved.meteredAs({ kind, pullRequestId: pr?.id ?? null, repositoryName: pr?.repositoryName ?? null }) };
    const history = await loadingHistory;
    // A new thread's id is chosen here, so its id line and the model request need not wait for the
    // insert; the insert is awaited before the message that refers to it is saved.
    const threadId = existing?.id ?? randomUUID();
    const created =
      existing === undefined
        ? this.deps.conversations.create({ id: threadId, userId, title: firstWords(input.message), connectedPrId: pr?.id ?? null, connectedPrTitle: pr?.title ?? null })
        : Promise.resolve(existing);
    // Observed at once, so a failed insert is never an unhandled rejection; answer() reports it.
    created.catch(() => undefined);

    const contextLength = choice.contextLength ?? DEFAULT_CONTEXT;
    return this.answer({
      userId,
      input,
      threadId,
      created,
      isNew: existing === undefined,
      choice,
      scope: command === undefined ? userScope(this.deps.pullRequests, userId) : pullRequestScope(command.pr),
      system: systemPrompt(pr, contextLength, pr === undefined ? undefined : this.deps.hosts().of(pr)),
      messages: [...historyMessages(history, contextLength), { role: 'user' as const, content: input.message }],
      abortSignal,
    });
  }

  private async *answer(chat: {
    userId: string;
    input: ChatInput;
    threadId: string;
    created: Promise<AiConversation>;
    isNew: boolean;
    choice: ModelChoice;
    scope: ChatScope;
    system: string;
    messages: ModelMessage[];
    abortSignal: AbortSignal;
  }): AsyncGenerator<ChatEvent> {
    const { threadId, choice, abortSignal } = chat;
    if (chat.isNew) yield { conversationId: threadId };
    // The title is asked for once the answer has begun: it must not compete for the first token.
    let titled: Promise<void> = Promise.resolve();
    const nameThread = () => {
      if (chat.isNew) titled = chat.created.then(() => this.nameThread(choice, threadId, chat.input.message));
    };
    const toolNames = new Set<string>();
    let output = '';
    let usage: LanguageModelUsage | undefined;
    try {
      const result = streamText({
        model: choice.model,
        system: chat.system,
        messages: chat.messages,
        tools: chatTools({ scope: chat.scope, diffOf: (pr) => this.deps.diffs.of(pr), codeOf: (pr) => this.deps.code.headOf(pr) }),
        stopWhen: stepCountIs(MAX_STEPS),
        abortSignal,
        maxRetries: 1,
        // Errors arrive as stream parts and are answered there; the default would print them.
        onError: () => undefined,
      });
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') {
          if (output === '') nameThread();
          output += part.text;
          yield { type: 'content', content: part.text };
        } else if (part.type === 'tool-call') {
          toolNames.add(part.toolName);
          yield { type: 'tool-call', toolName: part.toolName, toolCallId: part.toolCallId, input: part.input };
        } else if (part.type === 'tool-result') {
          yield { type: 'tool-result', toolName: part.toolName, toolCallId: part.toolCallId, output: part.output };
        } else if (part.type === 'tool-error') {
          yield { type: 'tool-result', toolName: part.toolName, toolCallId: part.toolCallId, output: { error: 'The tool failed' } };
        } else if (part.type === 'error') {
          throw part.error;
        } else if (part.type === 'finish') {
          usage = part.totalUsage;
        }
      }
    } catch (error) {
      if (!abortSignal.aborted) {
        this.deps.log.warn({ err: error, conversationId: threadId }, 'chat answer failed');
        yield { type: 'error', error: publicError(error) };
      }
    } finally {
      if (output === '') nameThread();
      // Saved even when the model failed or the client left: the partial answer is kept.
      await chat.created
        .then(() =>
          this.deps.conversations.addMessage({
            conversationId: threadId,
            inputMessage: chat.input.message,
            outputMessage: output,
            usedToolCalls: [...toolNames],
            llmModel: choice.modelId,
            ...tokenCounts(usage),
          }),
        )
        .catch((error: unknown) => this.deps.log.error({ err: error, conversationId: threadId }, 'could not save a chat message'));
      await titled;
    }
  }

  /** Up to 100 messages of the owner's thread, oldest first, created at or before `upTo`. */
  async history(userId: string, conversationId: string, upTo: Date | undefined): Promise<Array<z.input<typeof historyItem>>> {
    if ((await this.deps.conversations.findOwned(userId, conversationId)) === undefined) throw new AppError('NOT_FOUND', 'No such conversation');
    const messages = await this.deps.conversations.messages(userId, conversationId, upTo);
    return messages.map((message) => ({
      id: message.id,
      inputMessage: message.inputMessage,
      outputMessage: message.outputMessage,
      usedToolCalls: message.usedToolCalls,
      thumbsFeedback: message.thumbsFeedback,
      llmModel: message.llmModel,
      inputTokens: message.inputTokens,
      outputToken: message.outputTokens,
      createdAt: message.createdAt.toISOString(),
    }));
  }

  /** A page of the owner's threads as the JSON the route sends (built by the database). */
  threads(userId: string, before: Date | undefined): Promise<string> {
    return this.deps.conversations.threadsPage(userId, before);
  }

  async feedback(userId: string, { messageId, userFeedback, regeneratedMsg }: z.output<typeof feedbackBody>): Promise<void> {
    const changed = await this.deps.conversations.setFeedback(userId, messageId, {
      ...(userFeedback === undefined ? {} : { thumbsFeedback: userFeedback }),
      ...(regeneratedMsg === undefined ? {} : { regenerated: regeneratedMsg }),
    });
    if (!changed) throw new AppError('NOT_FOUND', 'No such message');
  }

  /** A short title from the model; on any failure the first words of the message stay. */
  private async nameThread(choice: ModelChoice, conversationId: string, message: string): Promise<void> {
    try {
      const { text } = await generateText({
        model: choice.model,
        prompt: `Write a short title (six words at most) for a conversation that starts with the message below. Answer with the title only, without quotes.\n\n<message>\n${message.slice(0, 2_000)}\n</message>`,
        maxOutputTokens: 30,
        maxRetries: 0,
      });
      const title = text.replace(/^["'\s#*]+|["'\s.*]+$/g, '').replace(/\s+/g, ' ').slice(0, 120);
      if (title) await this.deps.conversations.setTitle(conversationId, title);
    } catch (error) {
      this.deps.log.debug({ err: error, conversationId }, 'no title from the model; keeping the first words');
    }
  }

  private async connectedPullRequest(userId: string, prId: string | undefined, thread: AiConversation | undefined): Promise<PullRequest | undefined> {
    if (prId !== undefined) {
      const pr = await this.deps.pullRequests.findOwnedBySelector(userId, prId);
      if (pr === undefined) throw new AppError('NOT_FOUND', 'No such pull request');
      return pr;
    }
    return thread?.connectedPrId ? this.deps.pullRequests.findOwned(userId, thread.connectedPrId) : undefined;
  }
}

/** The token counts of an exchange, as the API document names them. */
function tokenCounts(usage: LanguageModelUsage | undefined) {
  const input = usage?.inputTokens ?? 0;
  const cached = usage?.inputTokenDetails.cacheReadTokens ?? 0;
  return {
    inputTokens: input,
    uncachedInputTokens: usage?.inputTokenDetails.noCacheTokens ?? Math.max(0, input - cached),
    cachedInputReadTokens: cached,
    outputTokens: usage?.outputTokens ?? 0,
    reasoningOutputTokens: usage?.outputTokenDetails.reasoningTokens ?? 0,
  };
}

/** What the client may read of a failure: never a provider's own message, which can echo request data. */
function publicError(error: unknown): string {
  if (APICallError.isInstance(error)) return `The model provider failed (${error.statusCode ?? 'no answer'}); the answer so far is kept`;
  return 'The model stopped before finishing its answer; the answer so far is kept';
}
