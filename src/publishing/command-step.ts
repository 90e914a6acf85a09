import { AppPullRequest } from '../adapters/github/app-pull-request.js';
import type { GitHubApp } from '../adapters/github/github-app.js';
import { UnrecoverableJobError, type Job } from '../adapters/queue/job-queue.js';
import type { PullRequest } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import type { Logger } from '../lib/logger.js';
import { installationCovers, type GitHubInstallationRepository } from '../repositories/github-installation-repository.js';
import type { PullRequestRepository } from '../repositories/pull-request-repository.js';
import type { ConversationService } from '../routes/conversation/conversation-service.js';
import type { ReviewService } from '../routes/review/review-service.js';
import { helpText, parseCommand } from './commands.js';
import { jobFailure } from './publish-step.js';
import { replyMarker } from './markers.js';

export interface CommandDeps {
  app: GitHubApp;
  pullRequests: PullRequestRepository;
  installations: GitHubInstallationRepository;
  reviews: ReviewService;
  conversations: ConversationService;
  log: Logger;
}

/** How long a question may take the chat engine before the command gives up. */
const ASK_TIMEOUT_MS = 120_000;

/**
 * `appCommand`: a command from a pull-request comment, or a re-requested check run, run by a worker
 * (so the webhook answers at once). The comment is acknowledged with `eyes`; answers are comments
 * marked with the command comment's id, so a retried job does not answer twice.
 */
export async function runCommand(deps: CommandDeps, job: Job<'appCommand'>): Promise<void> {
  const command = job.payload;
  const installation = await deps.installations.find(command.installationId);
  if (!installationCovers(installation, { fullName: command.repositoryName })) return;
  const parsed = parseCommand(command.body, deps.app.slug);
  if (parsed === undefined) return;
  const pr = await deps.pullRequests.findByNumber(command.repositoryName, command.prNumber);

  await github(deps, command.installationId, command.repositoryName, command.prNumber, async (pull) => {
    if (command.commentId !== undefined) await pull.acknowledge(command.commentId);
  });

  if (parsed.kind === 'review') {
    if (pr === undefined) return reply(deps, command, 'I have no record of this pull request yet: it is reviewed when a commit is pushed (or it is reopened) while the App is installed.');
    await deps.reviews.start(pr.userId, { id: pr.id }, parsed.mode, command.headSha).catch(unrecoverable);
    return;
  }
  if (parsed.kind === 'help') return reply(deps, command, helpText(deps.app.slug));
  if (pr === undefined) return reply(deps, command, 'I have no record of this pull request yet, so I cannot answer questions about it.');
  if (await alreadyAnswered(deps, command)) return;
  await reply(deps, command, await ask(deps, pr, parsed.question));
}

/** The chat engine's answer, as the pull request's owner: kept as their conversation, spent like any chat. */
async function ask(deps: CommandDeps, pr: PullRequest, question: string): Promise<string> {
  let events;
  try {
    events = await deps.conversations.open(pr.userId, { message: question, prId: pr.id }, AbortSignal.timeout(ASK_TIMEOUT_MS), 'command');
  } catch (error) {
    // No model the owner may use (allowance spent): the answer says so, as the chat would.
    if (error instanceof AppError && error.statusCode < 500) return `I cannot answer: ${error.message}`;
    throw error;
  }
  let answer = '';
  let failure: string | undefined;
  for await (const event of events) {
    if ('type' in event && event.type === 'content') answer += event.content;
    if ('type' in event && event.type === 'error') failure = event.error;
  }
  if (failure !== undefined && answer === '') throw new Error(failure);
  return answer.replaceAll('<!--', '&lt;!--').trim() || 'The model gave no answer.';
}

async function alreadyAnswered(deps: CommandDeps, command: Job<'appCommand'>['payload']): Promise<boolean> {
  if (command.commentId === undefined) return false;
  const marker = replyMarker(command.commentId);
  return github(deps, command.installationId, command.repositoryName, command.prNumber, async (pull) =>
    (await pull.issueComments()).some((comment) => comment.author === deps.app.botLogin && comment.body.startsWith(marker)),
  );
}

async function reply(deps: CommandDeps, command: Job<'appCommand'>['payload'], text: string): Promise<void> {
  const marker = command.commentId === undefined ? '' : `${replyMarker(command.commentId)}\n`;
  await github(deps, command.installationId, command.repositoryName, command.prNumber, async (pull) => {
    if (marker !== '' && (await pull.issueComments()).some((comment) => comment.author === deps.app.botLogin && comment.body.startsWith(marker))) return;
    await pull.createIssueComment(`${marker}${text}`);
  });
}

async function github<T>(deps: CommandDeps, installationId: number, repositoryName: string, prNumber: number, call: (pull: AppPullRequest) => Promise<T>): Promise<T> {
  try {
    return await deps.app.asInstallation(installationId, (api) => call(new AppPullRequest(api, repositoryName, prNumber)));
  } catch (error) {
    throw jobFailure(error);
  }
}

function unrecoverable(error: unknown): never {
  if (error instanceof AppError && error.statusCode < 500) throw new UnrecoverableJobError(error.message);
  throw error;
}
