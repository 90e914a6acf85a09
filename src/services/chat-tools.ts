import { tool } from 'ai';
import { z } from 'zod';
import type { CodeIndex } from '../code-context/code-index.js';
import { findDefinitionAnswer, readFileAnswer, searchAnswer, type ToolAnswer } from '../code-context/code-tools.js';
import type { PullRequest } from '../db/schema/index.js';
import type { ChatPullRequest, PullRequestFilter, PullRequestRepository } from '../repositories/pull-request-repository.js';
import { apiPrId, parsePullRequestSelector } from '../lib/ids.js';

/** The most of a diff a tool returns: a model reads it whole into its context. */
export const TOOL_DIFF_CHARS = 60_000;
/** The most of one code answer (a file's 300 lines, five definitions, 40 matches): a few of them fit any context. */
export const TOOL_CODE_CHARS = 16_000;

/** The pull requests a chat's tools may read. */
export interface ChatScope {
  find: (prId: string | number) => Promise<PullRequest | undefined>;
  list: (filter: Pick<PullRequestFilter, 'search' | 'status'>) => Promise<ChatPullRequest[]>;
}

/** A chat in the web app: every pull request the user may see, as through the API. */
export const userScope = (pullRequests: PullRequestRepository, userId: string): ChatScope => ({
  find: (prId) => pullRequests.findOwnedBySelector(userId, prId),
  list: (filter) => pullRequests.chatList(userId, filter),
});

/**
 * A command's answer (`/ask`), posted on the code host for whoever reads the pull request there:
 * that pull request and nothing else, so no other pull request of its owner's reaches a comment.
 */
export function pullRequestScope(pr: PullRequest): ChatScope {
  const item: ChatPullRequest = {
    prId: apiPrId(pr),
    number: pr.prNumber,
    title: pr.title,
    repository: pr.repositoryName,
    state: pr.state,
    reviewStatus: pr.reviewStatus,
    updatedAt: pr.updatedAt.toISOString(),
    htmlUrl: pr.htmlUrl,
  };
  return {
    find: async (prId) => {
      const selector = parsePullRequestSelector(prId);
      const same = selector !== undefined && ('prId' in selector ? selector.prId === pr.prId : selector.id === pr.id);
      return same ? pr : undefined;
    },
    list: async ({ search, status }) => {
      const shown = (search === undefined || pr.title.toLowerCase().includes(search.toLowerCase())) && (status === undefined || status === pr.reviewStatus);
      return shown ? [item] : [];
    },
  };
}

export interface ChatToolDeps {
  scope: ChatScope;
  /** A pull request's diff, from the cache or read from GitHub and cached. */
  diffOf: (pr: PullRequest) => Promise<string>;
  /** A pull request's code at its head commit, from the snapshots the reviews share. */
  codeOf: (pr: PullRequest) => Promise<CodeIndex>;
}

export function truncate(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  return { text: `${text.slice(0, limit)}\n… [${text.length - limit} more characters not shown]`, truncated: true };
}

// Built once: a chat's tools differ only in whose pull requests they read.
const prIdInput = z.union([z.string(), z.number()]).describe('The GitHub pull request id (as in getPRList) or the internal id');
const getDiffInput = z.object({ prId: prIdInput });
const getPRListInput = z.object({
  search: z.string().max(200).optional().describe('Case-insensitive part of the title'),
  status: z.enum(['pending', 'completed', 'failed']).optional().describe('Review status'),
});
const readFileInput = z.object({
  prId: prIdInput,
  path: z.string().max(1024).describe('Path relative to the repository root'),
  startLine: z.number().int().min(1).optional(),
  endLine: z.number().int().min(1).optional(),
});
const findDefinitionInput = z.object({ prId: prIdInput, symbol: z.string().min(1).max(200).describe('A function, method, class or type name; Class.method or object.method (req.get) puts the definitions on that class or object first') });
const searchInput = z.object({
  prId: prIdInput,
  text: z.string().min(1).max(200).describe('Exact text to find'),
  pathGlob: z.string().max(200).optional().describe('Only files matching this glob, e.g. src/**/*.ts'),
});

/**
 * The chat's tools, within their scope: another user's pull request is simply not found, as
 * through the API. The code tools read the pull request's head commit with the same
 * answers as deep mode's review tools (decisions.md §11), cut to `TOOL_CODE_CHARS`.
 */
export function chatTools({ scope, diffOf, codeOf }: ChatToolDeps) {
  const onCode = async (prId: string | number, answer: (index: CodeIndex) => Promise<ToolAnswer>) => {
    const pr = await scope.find(prId);
    if (pr === undefined) return { error: 'No pull request with that id among yours' };
    let result: ToolAnswer;
    try {
      result = await answer(await codeOf(pr));
    } catch (error) {
      // The code host refusing or unreachable: the model is told, the chat goes on.
      return { error: `The code of this pull request could not be read (${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'})` };
    }
    if ('error' in result) return { prId: apiPrId(pr), commit: pr.headSha, error: result.error };
    const { text, truncated } = truncate(result.text, TOOL_CODE_CHARS);
    return { prId: apiPrId(pr), commit: pr.headSha, text, truncated };
  };
  return {
    getDiff: tool({
      description: "Read the unified diff of one of the user's pull requests (by GitHub pull request id, or its internal id).",
      inputSchema: getDiffInput,
      execute: async ({ prId }) => {
        const pr = await scope.find(prId);
        if (pr === undefined) return { error: 'No pull request with that id among yours' };
        const { text, truncated } = truncate(await diffOf(pr), TOOL_DIFF_CHARS);
        return { prId: apiPrId(pr), title: pr.title, repository: pr.repositoryName, number: pr.prNumber, diff: text, truncated };
      },
    }),
    getPRList: tool({
      description: "List the user's pull requests, most recently updated first (20 at most).",
      inputSchema: getPRListInput,
      execute: ({ search, status }) => scope.list({ search, status }),
    }),
    read_file: tool({
      description: "Read lines of a file of one of the user's pull requests, at its head commit (300 lines at most per call).",
      inputSchema: readFileInput,
      execute: ({ prId, ...input }) => onCode(prId, (index) => readFileAnswer(index, input)),
    }),
    find_definition: tool({
      description: "Find where a function, method, class or type is defined in the repository of one of the user's pull requests, at its head commit, with its signature and doc comment.",
      inputSchema: findDefinitionInput,
      execute: ({ prId, ...input }) => onCode(prId, (index) => findDefinitionAnswer(index, input)),
    }),
    search: tool({
      description: "Find lines holding an exact text in the repository of one of the user's pull requests, at its head commit, optionally only in files matching a glob.",
      inputSchema: searchInput,
      execute: ({ prId, ...input }) => onCode(prId, (index) => searchAnswer(index, input)),
    }),
  };
}
