import { z } from 'zod';

/**
 * Bitbucket Cloud's webhook payloads (decisions.md §16, facts §1), the fields the service reads,
 * from Atlassian's event-payloads page and real deliveries (test/fixtures/bitbucket/). Unknown
 * fields are dropped here; the raw delivery is what gets stored.
 */

/** `X-Event-Key` values the service subscribes to and accepts; any other event is the API's 422. */
export const BITBUCKET_EVENTS = {
  created: 'pullrequest:created',
  updated: 'pullrequest:updated',
  fulfilled: 'pullrequest:fulfilled',
  rejected: 'pullrequest:rejected',
  commentCreated: 'pullrequest:comment_created',
} as const;
export type BitbucketEventKey = (typeof BITBUCKET_EVENTS)[keyof typeof BITBUCKET_EVENTS];
export const BITBUCKET_EVENT_KEYS: readonly BitbucketEventKey[] = Object.values(BITBUCKET_EVENTS);
export const isBitbucketEventKey = (key: string): key is BitbucketEventKey => (BITBUCKET_EVENT_KEYS as readonly string[]).includes(key);

/** An account UUID in braces, as Bitbucket writes them. */
const uuid = z.string().regex(/^\{[0-9a-fA-F-]{36}\}$/);
/** Payload hashes are 12 characters (facts §1); the API's 40 are accepted too. */
const hash = z.string().regex(/^[0-9a-f]{7,40}$/);

export const hookAccountSchema = z.object({
  uuid,
  account_id: z.string().max(128).nullish(),
  display_name: z.string().max(256).nullish(),
  nickname: z.string().max(256).nullish(),
  type: z.string().max(32).optional(),
});
export type HookAccount = z.infer<typeof hookAccountSchema>;

const hookRepositorySchema = z.object({
  uuid,
  full_name: z.string().min(3).max(256),
  links: z.object({ html: z.object({ href: z.string().max(2048) }) }).optional(),
});

const hookEndpointSchema = z.object({
  branch: z.object({ name: z.string().max(256) }),
  commit: z.object({ hash }),
  repository: z.object({ full_name: z.string().max(256), uuid: uuid.optional() }).optional(),
});

export const hookPullRequestSchema = z.object({
  id: z.number().int().positive(),
  title: z.string().max(10_000),
  description: z.string().nullish(),
  /** `OPEN`, `MERGED`, `DECLINED`, `SUPERSEDED`. */
  state: z.string().max(32),
  draft: z.boolean().optional(),
  author: hookAccountSchema.nullish(),
  source: hookEndpointSchema,
  destination: hookEndpointSchema,
  links: z.object({ html: z.object({ href: z.string().max(2048) }) }),
  created_on: z.string().max(64).optional(),
  updated_on: z.string().max(64).optional(),
});
export type HookPullRequest = z.infer<typeof hookPullRequestSchema>;

/** `pullrequest:created`, `:updated`, `:fulfilled`, `:rejected`: `{actor, pullrequest, repository}`. */
export const pullRequestHookSchema = z.object({
  actor: hookAccountSchema,
  repository: hookRepositorySchema,
  pullrequest: hookPullRequestSchema,
});
export type PullRequestHook = z.infer<typeof pullRequestHookSchema>;

export const hookCommentSchema = z.object({
  id: z.number().int().positive(),
  content: z.object({ raw: z.string().max(100_000) }),
  user: hookAccountSchema,
  deleted: z.boolean().optional(),
  /** A reply's thread: the comment it answers (a verdict on one of the service's inline comments). */
  parent: z.object({ id: z.number().int().positive() }).nullish(),
  inline: z.object({ path: z.string().max(4096), from: z.number().int().nullish(), to: z.number().int().nullish() }).nullish(),
  links: z.object({ html: z.object({ href: z.string().max(2048) }).optional() }).optional(),
});
export type HookComment = z.infer<typeof hookCommentSchema>;

/** `pullrequest:comment_created`: the pull request's payload and the comment. */
export const commentHookSchema = pullRequestHookSchema.extend({ comment: hookCommentSchema });
export type CommentHook = z.infer<typeof commentHookSchema>;

/** The schema of an accepted event's payload. */
export const hookSchemaOf = (key: BitbucketEventKey) => (key === BITBUCKET_EVENTS.commentCreated ? commentHookSchema : pullRequestHookSchema);

/** The delivery headers (facts §1): `X-Request-UUID` is the idempotency key, the same across Bitbucket's retries. */
export const bitbucketDeliveryHeadersSchema = z.object({
  'x-event-key': z.string().min(1).max(64),
  'x-request-uuid': z.string().min(1).max(64),
  'x-attempt-number': z.coerce.number().int().positive().max(100).optional(),
  'x-hook-uuid': z.string().max(64).optional(),
  'x-hub-signature': z.string().max(128).optional(),
});
export type BitbucketDeliveryHeaders = z.infer<typeof bitbucketDeliveryHeadersSchema>;
