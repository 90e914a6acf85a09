import { z } from 'zod';

const count = z.number().int().nonnegative().nullish();
const timestamp = z.iso.datetime({ offset: true });
const gitRef = z.looseObject({ ref: z.string().min(1).max(256), sha: z.string().min(1).max(64) });

/**
 * The part of GitHub's `pull_request` event the service maps to its own fields. Objects are loose:
 * the payload is kept whole (`bodyBlob`), only these fields must be right.
 */
export const pullRequestEventSchema = z.looseObject({
  action: z.string().min(1).max(64),
  pull_request: z.looseObject({
    id: z.number().int().positive(),
    number: z.number().int().positive(),
    title: z.string(),
    state: z.enum(['open', 'closed']),
    html_url: z.string().nullish(),
    diff_url: z.string().nullish(),
    draft: z.boolean().nullish(),
    merged: z.boolean().nullish(),
    merge_commit_sha: z.string().max(64).nullish(),
    commits: count,
    additions: count,
    deletions: count,
    changed_files: count,
    created_at: timestamp,
    updated_at: timestamp,
    user: z.looseObject({ id: z.number().int().positive(), login: z.string() }),
    head: gitRef,
    base: gitRef,
  }),
  repository: z.looseObject({
    id: z.number().int().positive(),
    full_name: z.string().min(3).max(256),
    html_url: z.string().nullish(),
    private: z.boolean().nullish(),
  }),
  /** Present when the delivery comes from the GitHub App (decisions.md §8). */
  installation: z.looseObject({ id: z.number().int().positive() }).nullish(),
});

export type PullRequestEvent = z.infer<typeof pullRequestEventSchema>;

export const webhookAcceptedResponse = z.object({ message: z.literal('The request has succeeded.') });
