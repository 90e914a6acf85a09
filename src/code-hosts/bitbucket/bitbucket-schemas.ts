import { z } from 'zod';

/** Bitbucket Cloud REST 2.0 answers, only the fields this service reads (decisions.md §16, bitbucket-facts.md). */

const link = z.object({ href: z.string() });

export const bitbucketAccountSchema = z.object({
  /** With braces: `{1d29d34f-...}`. */
  uuid: z.string(),
  account_id: z.string().nullish(),
  display_name: z.string().nullish(),
  nickname: z.string().nullish(),
  /** `user`, or `app_user` for what an access token writes as (facts §5: undocumented, never relied on). */
  type: z.string().optional(),
});
export type BitbucketAccount = z.infer<typeof bitbucketAccountSchema>;

export const bitbucketRepositorySchema = z.object({
  uuid: z.string(),
  full_name: z.string(),
  links: z.object({ html: link }),
  mainbranch: z.object({ name: z.string() }).nullish(),
});
export type BitbucketRepository = z.infer<typeof bitbucketRepositorySchema>;

const commitRef = z.object({ hash: z.string() });
const endpoint = z.object({ branch: z.object({ name: z.string() }), commit: commitRef.nullable() });

export const bitbucketPullRequestSchema = z.object({
  id: z.number().int().positive(),
  title: z.string(),
  description: z.string().nullish(),
  state: z.string(),
  draft: z.boolean().optional(),
  author: bitbucketAccountSchema.nullish(),
  source: endpoint,
  destination: endpoint,
  links: z.object({ html: link }),
});
export type BitbucketPullRequest = z.infer<typeof bitbucketPullRequestSchema>;

export const bitbucketCommitSchema = z.object({ hash: z.string().regex(/^[0-9a-f]{40}$/) });

export const bitbucketDiffstatSchema = z.object({
  status: z.string(),
  lines_added: z.number().int().nullish(),
  lines_removed: z.number().int().nullish(),
  old: z.object({ path: z.string() }).nullish(),
  new: z.object({ path: z.string() }).nullish(),
});
export type BitbucketDiffstat = z.infer<typeof bitbucketDiffstatSchema>;

export const bitbucketInlineSchema = z.object({
  path: z.string(),
  from: z.number().int().nullish(),
  to: z.number().int().nullish(),
  start_from: z.number().int().nullish(),
  start_to: z.number().int().nullish(),
});

export const bitbucketCommentSchema = z.object({
  id: z.number().int().positive(),
  content: z.object({ raw: z.string().nullish() }),
  user: bitbucketAccountSchema.nullish(),
  deleted: z.boolean().optional(),
  inline: bitbucketInlineSchema.nullish(),
  parent: z.object({ id: z.number().int().positive() }).nullish(),
  resolution: z.object({ type: z.string() }).nullish(),
  links: z.object({ html: link.optional() }).optional(),
});
export type BitbucketComment = z.infer<typeof bitbucketCommentSchema>;

/** An entry of a folder listed through `/src` (facts §2): a file with its size, or a sub-folder. */
export const bitbucketSourceEntrySchema = z.object({ type: z.string(), path: z.string(), size: z.number().int().nonnegative().nullish() });
export type BitbucketSourceEntry = z.infer<typeof bitbucketSourceEntrySchema>;

export const bitbucketBuildStatusSchema = z.object({ key: z.string(), state: z.string(), url: z.string().nullish() });

export const bitbucketHookSchema = z.object({ uuid: z.string(), active: z.boolean().optional(), events: z.array(z.string()).optional() });

export const bitbucketPermissionSchema = z.object({ permission: z.enum(['read', 'write', 'admin', 'none']).or(z.string()), user: bitbucketAccountSchema.nullish() });

/** One page of a paged list: `{values, next?}` (`next` a whole URL). */
export const pageSchema = <Item extends z.ZodType>(item: Item) => z.object({ values: z.array(item), next: z.string().optional() });
