import { z } from 'zod';

/**
 * GitLab REST v4 answers, only the fields this service reads. A self-managed instance is a
 * user-supplied server: its answers are parsed, never trusted as typed.
 */

export const gitlabProjectSchema = z.object({
  id: z.number().int().positive(),
  path_with_namespace: z.string().min(1),
  web_url: z.string(),
  default_branch: z.string().nullish(),
});
export type GitLabProject = z.infer<typeof gitlabProjectSchema>;

export const gitlabHookSchema = z.object({ id: z.number().int().positive() });

export const gitlabUserSchema = z.object({
  id: z.number().int().positive(),
  username: z.string(),
  name: z.string().nullish(),
  /** Project and group access tokens' users and service accounts. */
  bot: z.boolean().optional(),
});
export type GitLabUser = z.infer<typeof gitlabUserSchema>;

export const gitlabMemberSchema = z.object({ id: z.number().int(), access_level: z.number().int() });

export const diffRefsSchema = z.object({ base_sha: z.string(), start_sha: z.string(), head_sha: z.string() });
export type GitLabDiffRefs = z.infer<typeof diffRefsSchema>;

export const gitlabMergeRequestSchema = z.object({
  id: z.number().int(),
  iid: z.number().int(),
  project_id: z.number().int(),
  title: z.string(),
  description: z.string().nullish(),
  state: z.string(),
  draft: z.boolean().optional(),
  source_branch: z.string(),
  target_branch: z.string(),
  sha: z.string().nullish(),
  /** Null while GitLab is still preparing the merge request's diff. */
  diff_refs: diffRefsSchema.nullish(),
  web_url: z.string(),
  author: gitlabUserSchema.pick({ id: true, username: true }),
});
export type GitLabMergeRequest = z.infer<typeof gitlabMergeRequestSchema>;

/** One file of `/merge_requests/:iid/diffs` and of `compare`'s `diffs`. */
export const gitlabDiffEntrySchema = z.object({
  old_path: z.string(),
  new_path: z.string(),
  a_mode: z.string().nullish(),
  b_mode: z.string().nullish(),
  diff: z.string().nullish(),
  new_file: z.boolean(),
  renamed_file: z.boolean(),
  deleted_file: z.boolean(),
  too_large: z.boolean().nullish(),
  collapsed: z.boolean().nullish(),
});
export type GitLabDiffEntry = z.infer<typeof gitlabDiffEntrySchema>;

export const gitlabCompareSchema = z.object({ diffs: z.array(gitlabDiffEntrySchema), compare_timeout: z.boolean().optional() });

export const gitlabNoteSchema = z.object({ id: z.number().int(), body: z.string(), author: gitlabUserSchema.pick({ id: true, username: true }) });
export type GitLabNote = z.infer<typeof gitlabNoteSchema>;

export const gitlabDiscussionSchema = z.object({ id: z.string(), individual_note: z.boolean(), notes: z.array(gitlabNoteSchema.extend({ resolved: z.boolean().optional() })) });
export type GitLabDiscussion = z.infer<typeof gitlabDiscussionSchema>;

export const gitlabStatusSchema = z.object({ id: z.number().int(), status: z.string() });

/** One entry of `GET /projects/:id/repository/tree` (`blob`, `tree` or `commit` for a submodule); GitLab sends no size. */
export const gitlabTreeEntrySchema = z.object({ path: z.string(), type: z.string() });
