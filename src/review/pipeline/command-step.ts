import { UnrecoverableJobError, type AppCommand, type Job } from '../../adapters/queue/job-queue.js';
import type { ChangePublisher, CommandTarget } from '../../code-hosts/code-host.js';
import type { PullRequest } from '../../db/schema/index.js';
import { AppError } from '../../lib/app-error.js';
import type { Logger } from '../../lib/logger.js';
import type { ConversationService } from '../../services/conversation-service.js';
import type { ReviewService } from '../../services/review-service.js';
import { helpText, parseCommand, VERDICT_REPLY } from '../../publishing/commands.js';
import type { FindingVerdict } from '../../db/schema/index.js';
import type { HostVerdict } from '../../services/finding-feedback-service.js';
import type { OrganizationRepository } from '../../repositories/organization-repository.js';
import { commandMember } from './usage-member.js';

export interface CommandDeps {
  /** The command's change on its host; undefined when the service may no longer act there. */
  target: (command: AppCommand) => Promise<CommandTarget | undefined>;
  reviews: ReviewService;
  conversations: ConversationService;
  /** Whether the command's author is a member of its pull request's organization (decisions.md §15). */
  members: Pick<OrganizationRepository, 'roleOf'>;
  /** A verdict given by reply (decisions.md §10): the same as the API's. */
  setVerdict: (pr: PullRequest, verdict: HostVerdict) => Promise<void>;
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
  const target = await deps.target(command);
  if (target === undefined) return;
  if (await verdictByReply(deps, target, command)) return;
  const parsed = parseCommand(command.body, target.mention);
  if (parsed === undefined) return;
  const { pr } = target;

  if (command.commentId !== undefined) await onHost(target, (host) => host.acknowledge(command.commentId!));

  if (parsed.kind === 'review') {
    if (pr === undefined) return reply(target, command, 'I have no record of this pull request yet: it is reviewed when a commit is pushed (or it is reopened) while the App is installed.');
    const memberId = await commandMember(deps.members, pr, target);
    await deps.reviews.run(pr, { mode: parsed.mode, headSha: command.headSha, memberId }).catch(unrecoverable);
    return;
  }
  if (parsed.kind === 'help') return reply(target, command, helpText(target.mention));
  if (pr === undefined) return reply(target, command, 'I have no record of this pull request yet, so I cannot answer questions about it.');
  if (await alreadyAnswered(target, command)) return;
  await reply(target, command, await ask(deps, pr, parsed.question, await commandMember(deps.members, pr, target)));
}

/**
 * The chat engine's answer, as the pull request's owner: kept as their conversation, paid like any
 * command by the pull request's owner and, in an organization, attributed to `memberId`.
 */
async function ask(deps: CommandDeps, pr: PullRequest, question: string, memberId: string | null): Promise<string> {
  let events;
  try {
    events = await deps.conversations.open(pr.userId, { message: question }, AbortSignal.timeout(ASK_TIMEOUT_MS), { pr, memberId });
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

async function alreadyAnswered(target: CommandTarget, command: AppCommand): Promise<boolean> {
  if (command.commentId === undefined) return false;
  const commentId = command.commentId;
  return onHost(target, async (host) => {
    const marker = host.dialect.markers.reply(commentId);
    return (await host.ownNotes()).some((note) => note.body.startsWith(marker));
  });
}

async function reply(target: CommandTarget, command: AppCommand, text: string): Promise<void> {
  await onHost(target, async (host) => {
    const marker = command.commentId === undefined ? '' : `${host.dialect.markers.reply(command.commentId)}\n`;
    if (marker !== '' && (await host.ownNotes()).some((note) => note.body.startsWith(marker))) return;
    await host.reply(`${marker}${text}`);
  });
}

async function onHost<T>(target: CommandTarget, call: (host: ChangePublisher) => Promise<T>): Promise<T> {
  try {
    return await target.session.run(call);
  } catch (error) {
    throw target.session.failure(error);
  }
}

/** `/wrong`, `/wontfix` or `/helpful` (a note after it) in a finding's thread: that finding's verdict, acknowledged. */
async function verdictByReply(deps: CommandDeps, target: CommandTarget, command: AppCommand): Promise<boolean> {
  const match = VERDICT_REPLY.exec(command.body.trim());
  if (match === null || target.findingOfReply === undefined || target.pr === undefined || command.commentId === undefined) return false;
  const findingId = await onHost(target, () => target.findingOfReply!());
  if (findingId === undefined) return false;
  const pr = target.pr;
  try {
    await deps.setVerdict(pr, { findingId, verdict: match[1]!.toLowerCase() as FindingVerdict, note: match[2]!.trim() || undefined });
  } catch (error) {
    // A finding a push took away: nothing to record.
    if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
  }
  await onHost(target, (host) => host.acknowledge(command.commentId!));
  return true;
}

function unrecoverable(error: unknown): never {
  if (error instanceof AppError && error.statusCode < 500) throw new UnrecoverableJobError(error.message);
  throw error;
}
