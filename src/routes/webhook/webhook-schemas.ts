import { z } from 'zod';
import { replaceRefusedCharacters } from '../../lib/text-hygiene.js';

/**
 * A string of GitHub's payload: data to keep, not input to refuse (decisions.md §7). Characters
 * PostgreSQL refuses in text become U+FFFD in every column derived from it.
 */
export const githubText = (schema: z.ZodString = z.string()) => schema.transform(replaceRefusedCharacters);

const count = z.number().int().nonnegative().nullish();
const timestamp = z.iso.datetime({ offset: true });
const gitRef = z.looseObject({ ref: githubText(z.string().min(1).max(256)), sha: githubText(z.string().min(1).max(64)) });

/**
 * The part of GitHub's `pull_request` event the service maps to its own fields. Objects are loose:
 * the payload is kept whole (`bodyBlob`), only these fields must be right.
 */
export const pullRequestEventSchema = z.looseObject({
  action: githubText(z.string().min(1).max(64)),
  pull_request: z.looseObject({
    id: z.number().int().positive(),
    number: z.number().int().positive(),
    title: githubText(),
    state: z.enum(['open', 'closed']),
    html_url: githubText().nullish(),
    diff_url: githubText().nullish(),
    draft: z.boolean().nullish(),
    merged: z.boolean().nullish(),
    merge_commit_sha: githubText(z.string().max(64)).nullish(),
    commits: count,
    additions: count,
    deletions: count,
    changed_files: count,
    created_at: timestamp,
    updated_at: timestamp,
    user: z.looseObject({ id: z.number().int().positive(), login: githubText() }),
    head: gitRef,
    base: gitRef,
  }),
  repository: z.looseObject({
    id: z.number().int().positive(),
    full_name: githubText(z.string().min(3).max(256)),
    html_url: githubText().nullish(),
    private: z.boolean().nullish(),
  }),
  /** Present when the delivery comes from the GitHub App (decisions.md §8). */
  installation: z.looseObject({ id: z.number().int().positive() }).nullish(),
});

export type PullRequestEvent = z.infer<typeof pullRequestEventSchema>;

export const webhookAcceptedResponse = z.object({ message: z.literal('The request has succeeded.') });
