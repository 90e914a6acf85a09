import { tool } from 'ai';
import { z } from 'zod';
import type { PullRequest } from '../../db/schema/index.js';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import { apiPrId } from '../../lib/ids.js';

/** The most of a diff a tool returns: a model reads it whole into its context. */
export const TOOL_DIFF_CHARS = 60_000;

export interface ChatToolDeps {
  userId: string;
  pullRequests: PullRequestRepository;
  /** A pull request's diff, from the cache or read from GitHub and cached. */
  diffOf: (pr: PullRequest) => Promise<string>;
}

export function truncate(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  return { text: `${text.slice(0, limit)}\n… [${text.length - limit} more characters not shown]`, truncated: true };
}

// Built once: a chat's tools differ only in whose pull requests they read.
const getDiffInput = z.object({ prId: z.union([z.string(), z.number()]).describe('The GitHub pull request id (as in getPRList) or the internal id') });
const getPRListInput = z.object({
  search: z.string().max(200).optional().describe('Case-insensitive part of the title'),
  status: z.enum(['pending', 'completed', 'failed']).optional().describe('Review status'),
});

/**
 * The chat's tools. Both act for the signed-in user only: another user's pull request is simply
 * not found, as through the API.
 */
export function chatTools({ userId, pullRequests, diffOf }: ChatToolDeps) {
  return {
    getDiff: tool({
      description: "Read the unified diff of one of the user's pull requests (by GitHub pull request id, or its internal id).",
      inputSchema: getDiffInput,
      execute: async ({ prId }) => {
        const pr = await pullRequests.findOwnedBySelector(userId, prId);
        if (pr === undefined) return { error: 'No pull request with that id among yours' };
        const { text, truncated } = truncate(await diffOf(pr), TOOL_DIFF_CHARS);
        return { prId: apiPrId(pr), title: pr.title, repository: pr.repositoryName, number: pr.prNumber, diff: text, truncated };
      },
    }),
    getPRList: tool({
      description: "List the user's pull requests, most recently updated first (20 at most).",
      inputSchema: getPRListInput,
      execute: ({ search, status }) => pullRequests.chatList(userId, { search, status }),
    }),
  };
}
