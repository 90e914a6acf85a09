import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isDraft, isMergeRequestNote, mergeRequestEvent, mergeRequestHookSchema, noteHookSchema, type MergeRequestHook } from '../../src/code-hosts/gitlab/gitlab-webhook-schemas.js';
import { matchWebhookToken } from '../../src/code-hosts/gitlab/gitlab-webhook-token.js';

/** GitLab's documented webhook examples (docs: "Webhook events"), kept as received. */
const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`../fixtures/gitlab/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
const mergeRequestHook = () => fixture('merge-request-hook.json') as { object_attributes: Record<string, unknown>; changes?: unknown };
const noteHook = () => fixture('note-hook-merge-request.json') as { object_attributes: Record<string, unknown>; merge_request?: unknown };

const parsedMergeRequest = (change: (payload: ReturnType<typeof mergeRequestHook>) => void): MergeRequestHook => {
  const payload = mergeRequestHook();
  change(payload);
  return mergeRequestHookSchema.parse(payload);
};

describe('GitLab webhook payloads', () => {
  it("parses GitLab's Merge Request Hook example", () => {
    const hook = mergeRequestHookSchema.parse(mergeRequestHook());
    expect(hook.project).toEqual({ id: 1, path_with_namespace: 'gitlabhq/gitlab-test', web_url: 'http://example.com/gitlabhq/gitlab-test' });
    expect(hook.object_attributes).toMatchObject({ iid: 1, title: 'MS-Viewport', action: 'open', state: 'opened', target_branch: 'master', last_commit: { id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7' } });
    expect(isDraft(hook.object_attributes)).toBe(false);
    expect(hook.user.username).toBe('root');
  });

  it('tells what each merge request action asks for', () => {
    expect(mergeRequestEvent(parsedMergeRequest(() => undefined))).toEqual({ kind: 'review', reason: 'opened' });
    expect(mergeRequestEvent(parsedMergeRequest((payload) => (payload.object_attributes.action = 'reopen')))).toEqual({ kind: 'review-if-unreviewed' });
    expect(mergeRequestEvent(parsedMergeRequest((payload) => Object.assign(payload.object_attributes, { action: 'update', oldrev: 'a'.repeat(40) })))).toEqual({ kind: 'review-push', from: 'a'.repeat(40) });
    // The example's changes say draft went from true to false: ready for review.
    expect(mergeRequestEvent(parsedMergeRequest((payload) => (payload.object_attributes.action = 'update')))).toEqual({ kind: 'review', reason: 'ready' });
    expect(
      mergeRequestEvent(
        parsedMergeRequest((payload) => {
          payload.object_attributes.action = 'update';
          payload.changes = { title: { previous: 'Old', current: 'New' } };
        }),
      ),
    ).toEqual({ kind: 'refresh' });
    expect(mergeRequestEvent(parsedMergeRequest((payload) => (payload.object_attributes.action = 'close')))).toEqual({ kind: 'state', state: 'closed' });
    expect(mergeRequestEvent(parsedMergeRequest((payload) => (payload.object_attributes.action = 'merge')))).toEqual({ kind: 'state', state: 'merged' });
    expect(mergeRequestEvent(parsedMergeRequest((payload) => (payload.object_attributes.action = 'approved')))).toEqual({ kind: 'refresh' });
    expect(isDraft({ work_in_progress: true })).toBe(true);
  });

  it("parses GitLab's Note Hook example on a merge request; notes on issues, commits and system notes carry no command", () => {
    const hook = noteHookSchema.parse(noteHook());
    expect(hook.object_attributes).toMatchObject({ id: 1244, note: 'This MR needs work.', noteable_type: 'MergeRequest', discussion_id: '6a9c1750b37d513a43987b574953fceb50b03ce7' });
    expect(hook.merge_request).toMatchObject({ iid: 1, state: 'opened', last_commit: { id: '562e173be03b8ff2efb05345d12df18815438a4b' } });
    expect(isMergeRequestNote(hook)).toBe(true);

    const onIssue = noteHook();
    onIssue.object_attributes.noteable_type = 'Issue';
    delete onIssue.merge_request;
    expect(isMergeRequestNote(noteHookSchema.parse(onIssue))).toBe(false);
    const system = noteHook();
    system.object_attributes.system = true;
    expect(isMergeRequestNote(noteHookSchema.parse(system))).toBe(false);
  });

  it('refuses payloads without what the service needs (no project id, a wrong kind, a string for a number)', () => {
    const noProject = mergeRequestHook() as Record<string, unknown>;
    delete noProject.project;
    expect(mergeRequestHookSchema.safeParse(noProject).success).toBe(false);
    expect(mergeRequestHookSchema.safeParse(noteHook()).success).toBe(false);
    const stringIid = mergeRequestHook();
    stringIid.object_attributes.iid = '1';
    expect(mergeRequestHookSchema.safeParse(stringIid).success).toBe(false);
    expect(noteHookSchema.safeParse(null).success).toBe(false);
  });
});

describe('the X-Gitlab-Token check', () => {
  const candidates = [
    { id: 'a', secret: 'f'.repeat(64) },
    { id: 'b', secret: '0123456789abcdef'.repeat(4) },
  ];

  it("finds the connection whose secret the token is, among the project's connections", () => {
    expect(matchWebhookToken('0123456789abcdef'.repeat(4), candidates)?.id).toBe('b');
    expect(matchWebhookToken('f'.repeat(64), candidates)?.id).toBe('a');
  });

  it('matches nothing for a missing, empty, shorter, longer or wrong token', () => {
    for (const token of [undefined, '', 'f', 'f'.repeat(63), 'f'.repeat(65), 'e'.repeat(64)]) expect(matchWebhookToken(token, candidates)).toBeUndefined();
    expect(matchWebhookToken('f'.repeat(64), [])).toBeUndefined();
  });
});
