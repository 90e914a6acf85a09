import { z } from 'zod';

/**
 * GitLab's webhook payloads (decisions.md §12), the fields the service reads, from GitLab's
 * documented `Merge Request Hook` and `Note Hook` examples. Unknown fields are dropped here; the
 * raw delivery is what gets stored.
 */

/** `X-Gitlab-Event` values the service accepts; any other event is the API's 422. */
export const GITLAB_EVENTS = { mergeRequest: 'Merge Request Hook', note: 'Note Hook' } as const;

const id = z.number().int().nonnegative();

const hookUser = z.object({ id, username: z.string(), name: z.string().nullish() });

const hookProject = z.object({ id: id.positive(), path_with_namespace: z.string().min(1).max(256), web_url: z.string() });

const lastCommit = z.object({ id: z.string().min(1).max(64) });

export const mergeRequestHookSchema = z.object({
  object_kind: z.literal('merge_request'),
  user: hookUser,
  project: hookProject,
  object_attributes: z.object({
    id,
    iid: id.positive(),
    title: z.string(),
    description: z.string().nullish(),
    state: z.string(),
    /** `open`, `close`, `reopen`, `update`, `approved`, `unapproved`, `approval`, `unapproval`, `merge`. */
    action: z.string().optional(),
    draft: z.boolean().optional(),
    work_in_progress: z.boolean().optional(),
    source_branch: z.string().max(256),
    target_branch: z.string().max(256),
    author_id: id,
    url: z.string(),
    last_commit: lastCommit,
    /** The head before a push: present on an `update` that brought new commits. */
    oldrev: z.string().max(64).optional(),
    /** `2013-12-03T17:23:34Z`, or `2013-12-03 17:23:34 UTC` on older instances: both PostgreSQL timestamps. */
    created_at: z.string().max(64).optional(),
    updated_at: z.string().max(64).optional(),
  }),
  changes: z
    .object({
      draft: z.object({ previous: z.boolean().nullish(), current: z.boolean().nullish() }).optional(),
      title: z.object({ previous: z.string().nullish(), current: z.string().nullish() }).optional(),
    })
    .optional(),
});
export type MergeRequestHook = z.infer<typeof mergeRequestHookSchema>;

export const noteHookSchema = z.object({
  object_kind: z.literal('note'),
  user: hookUser,
  project: hookProject,
  object_attributes: z.object({
    id: id.positive(),
    note: z.string(),
    /** `MergeRequest`, `Issue`, `Commit` or `Snippet`: only the first carries commands. */
    noteable_type: z.string(),
    author_id: id,
    system: z.boolean().optional(),
    action: z.string().optional(),
    /** The thread a reply belongs to (verdict replies in a finding's discussion). */
    discussion_id: z.string().nullish(),
    type: z.string().nullish(),
    url: z.string(),
  }),
  merge_request: z
    .object({
      id,
      iid: id.positive(),
      title: z.string(),
      state: z.string(),
      draft: z.boolean().optional(),
      work_in_progress: z.boolean().optional(),
      target_branch: z.string(),
      last_commit: lastCommit,
    })
    .optional(),
});
export type NoteHook = z.infer<typeof noteHookSchema>;

/** What a `Merge Request Hook` asks of the service (decisions.md §12). */
export type MergeRequestEvent =
  | { kind: 'review'; reason: 'opened' | 'ready' }
  /** `reopen`: reviewed only when its head was not reviewed yet. */
  | { kind: 'review-if-unreviewed' }
  /** New commits: the push from `oldrev` is reviewed (incremental). */
  | { kind: 'review-push'; from: string }
  | { kind: 'state'; state: 'closed' | 'merged' }
  /** Anything else (title, labels, approvals): only the stored fields are refreshed. */
  | { kind: 'refresh' };

export function mergeRequestEvent(hook: MergeRequestHook): MergeRequestEvent {
  const { action, oldrev } = hook.object_attributes;
  switch (action) {
    case 'open':
      return { kind: 'review', reason: 'opened' };
    case 'reopen':
      return { kind: 'review-if-unreviewed' };
    case 'close':
      return { kind: 'state', state: 'closed' };
    case 'merge':
      return { kind: 'state', state: 'merged' };
    case 'update':
      if (oldrev !== undefined && oldrev !== '') return { kind: 'review-push', from: oldrev };
      if (hook.changes?.draft?.previous === true && hook.changes.draft.current === false) return { kind: 'review', reason: 'ready' };
      return { kind: 'refresh' };
    default:
      return { kind: 'refresh' };
  }
}

/** Drafts are `draft` on current GitLab, `work_in_progress` on older instances. */
export const isDraft = (mergeRequest: { draft?: boolean | undefined; work_in_progress?: boolean | undefined }) => mergeRequest.draft ?? mergeRequest.work_in_progress ?? false;

/** A note that can carry a command: on a merge request, written by a person (not a system note). */
export const isMergeRequestNote = (hook: NoteHook): hook is NoteHook & { merge_request: NonNullable<NoteHook['merge_request']> } =>
  hook.object_attributes.noteable_type === 'MergeRequest' && hook.merge_request !== undefined && hook.object_attributes.system !== true;
