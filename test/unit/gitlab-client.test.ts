import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EndpointPolicy } from '../../src/lib/endpoint-policy.js';
import { GitLabClient, type GitLabTarget } from '../../src/code-hosts/gitlab/gitlab-client.js';
import { gitlabLineCode } from '../../src/code-hosts/gitlab/gitlab-diff.js';
import { GitLabApiError, GitLabConnectionBrokenError, GitLabRateLimitedError, GitLabUnreachableError, rateLimitWaitMs } from '../../src/code-hosts/gitlab/gitlab-errors.js';
import { RetryLaterError } from '../../src/adapters/queue/job-queue.js';
import { AppError } from '../../src/lib/app-error.js';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { ACCESS, FakeGitLab, type FakeDiffEntry } from '../fakes/fake-gitlab.js';

const REFS = { base_sha: 'a'.repeat(40), start_sha: 'a'.repeat(40), head_sha: 'f'.repeat(40) };
const file = (n: number): FakeDiffEntry => ({
  old_path: `src/file-${n}.ts`,
  new_path: `src/file-${n}.ts`,
  a_mode: '100644',
  b_mode: '100644',
  diff: `@@ -1,2 +1,3 @@\n const n = ${n};\n+const m = n + 1;\n export { n };\n`,
  new_file: false,
  renamed_file: false,
  deleted_file: false,
  generated_file: false,
});

describe('GitLabClient against the fake GitLab', () => {
  let gitlab: FakeGitLab;
  let target: GitLabTarget;
  const owner = { id: 21, username: 'owner', name: 'Owner' };
  const client = new GitLabClient({ request: new EndpointPolicy(true).request });
  let projectId: number;

  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    projectId = gitlab.addProject('acme/platform/api').id;
    gitlab.addMember(projectId, owner, ACCESS.maintainer);
    target = { baseUrl: `${gitlab.url}/`, token: gitlab.issueToken(owner) };
    gitlab.openMergeRequest(projectId, 9, { author: owner, diffRefs: REFS, diffs: Array.from({ length: 230 }, (_, n) => file(n)) });
  });
  afterAll(() => gitlab.stop());

  it('reads a project by path and by id, and members with their access level', async () => {
    expect(await client.project(target, 'acme/platform/api')).toMatchObject({ id: projectId, path_with_namespace: 'acme/platform/api', web_url: `${gitlab.url}/acme/platform/api` });
    expect((await client.project(target, projectId)).id).toBe(projectId);
    expect(await client.accessLevel(target, projectId, owner.id)).toBe(ACCESS.maintainer);
    expect(await client.accessLevel(target, projectId, 9999)).toBeNull();
    expect(await client.currentUser(target)).toMatchObject({ id: owner.id, username: 'owner', bot: false });
  });

  it('assembles a diff of 230 files from three pages of 100, parseable line for line', async () => {
    const before = gitlab.requests.length;
    const diff = await client.mergeRequestDiff(target, projectId, 9);
    const pages = gitlab.requests.slice(before).map((request) => request.query.page);
    expect(pages).toEqual(['1', '2', '3']);
    const files = parseUnifiedDiff(diff);
    expect(files).toHaveLength(230);
    expect(files[229]).toMatchObject({ path: 'src/file-229.ts', status: 'modified', additions: 1, deletions: 0 });
    expect((await client.mergeRequest(target, projectId, 9)).diff_refs).toEqual(REFS);
  });

  it('reads a compare, a file and the archive; what does not exist is null', async () => {
    gitlab.setCompare(projectId, REFS.base_sha, REFS.head_sha, [file(1)]);
    gitlab.setFile(projectId, 'main', 'src/deep/.ai-review.yml', 'reviews:\n  auto: false\n');
    gitlab.setArchive(projectId, REFS.head_sha, Buffer.from([0x1f, 0x8b, 0x08]));
    expect(parseUnifiedDiff((await client.compareDiff(target, projectId, REFS.base_sha, REFS.head_sha))!)[0]!.path).toBe('src/file-1.ts');
    expect(await client.compareDiff(target, projectId, 'gone', REFS.head_sha)).toBeNull();
    expect(await client.fileContent(target, projectId, 'src/deep/.ai-review.yml', 'main')).toBe('reviews:\n  auto: false\n');
    expect(await client.fileContent(target, projectId, 'missing.yml', 'main')).toBeNull();
    expect(Buffer.from(await new Response(await client.archive(target, projectId, REFS.head_sha)).arrayBuffer())).toEqual(Buffer.from([0x1f, 0x8b, 0x08]));
    expect(await client.archive(target, projectId, 'b'.repeat(40))).toBeNull();
  });

  it('creates the webhook with merge request and note events and its secret, and deletes it (twice is fine)', async () => {
    const hook = await client.createHook(target, projectId, { url: 'https://review.example/webhook/gitlab', secret: 's3cret' });
    expect(gitlab.project(projectId).hooks).toEqual([expect.objectContaining({ id: hook.id, token: 's3cret', merge_requests_events: true, note_events: true, push_events: false })]);
    await client.deleteHook(target, projectId, hook.id);
    await client.deleteHook(target, projectId, hook.id);
    expect(gitlab.project(projectId).hooks).toEqual([]);
  });

  it('posts a status, a discussion on a line range, a refused position as a 400, a note edited in place and an award once', async () => {
    expect(await client.postStatus(target, projectId, REFS.head_sha, { state: 'running', name: 'AI review', targetUrl: 'https://review.example/pulls/x' })).toMatchObject({ status: 'running' });
    const path = 'src/file-3.ts';
    const discussion = await client.createDiscussion(target, projectId, 9, 'finding', {
      diffRefs: REFS,
      oldPath: path,
      newPath: path,
      newLine: 3,
      oldLine: 2,
      lineRange: { start: { lineCode: gitlabLineCode(path, 2, 2), type: 'new' }, end: { lineCode: gitlabLineCode(path, 2, 3), type: null } },
    });
    expect(discussion.notes[0]).toMatchObject({ body: 'finding' });
    const refused = await client.createDiscussion(target, projectId, 9, 'off the diff', { diffRefs: REFS, oldPath: path, newPath: path, newLine: 50 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GitLabApiError);
    expect(refused).toMatchObject({ status: 400, message: expect.stringContaining('line_code') });
    await client.resolveDiscussion(target, projectId, 9, discussion.id);
    expect((await client.listDiscussions(target, projectId, 9)).find((entry) => entry.id === discussion.id)!.notes[0]!.resolved).toBe(true);

    const note = await client.createNote(target, projectId, 9, 'summary v1');
    await client.editNote(target, projectId, 9, note.id, 'summary v2');
    expect(gitlab.mergeRequest(projectId, 9).discussions.flatMap((entry) => entry.notes).find((entry) => entry.id === note.id)).toMatchObject({ body: 'summary v2', edits: 1 });
    const command = gitlab.addNote(projectId, 9, '/review', owner);
    await client.awardNoteEmoji(target, projectId, 9, command.id, 'eyes');
    await client.awardNoteEmoji(target, projectId, 9, command.id, 'eyes');
    expect(gitlab.mergeRequest(projectId, 9).awards.filter((award) => award.noteId === command.id)).toHaveLength(1);
  });

  it('a revoked token (401) and a read-only one (403) break the connection; a hidden project is a 404', async () => {
    const revoked = gitlab.issueToken(owner);
    gitlab.revokeToken(revoked);
    await expect(client.project({ ...target, token: revoked }, projectId)).rejects.toMatchObject({ name: 'GitLabConnectionBrokenError', status: 401, message: '401 Unauthorized' });
    const reader = { ...target, token: gitlab.issueToken(owner, ['read_api']) };
    const error = await client.createNote(reader, projectId, 9, 'x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitLabConnectionBrokenError);
    expect(error).toMatchObject({ status: 403, message: expect.stringContaining('higher privileges') });
    const stranger = { ...target, token: gitlab.issueToken({ id: 77, username: 'stranger', name: 'S' }) };
    await expect(client.project(stranger, projectId)).rejects.toMatchObject({ name: 'GitLabApiError', status: 404, message: '404 Project Not Found' });
  });

  it("a 429 is a retry-later error with GitLab's Retry-After, or its RateLimit-Reset", async () => {
    gitlab.fail(/merge_requests\/9$/, 429, { headers: { 'retry-after': '7' }, body: { message: 'Retry later' } });
    const error = await client.mergeRequest(target, projectId, 9).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitLabRateLimitedError);
    expect(error).toBeInstanceOf(RetryLaterError);
    expect(error).toMatchObject({ status: 429, delayMs: 7000 });
    const reset = Math.floor(Date.now() / 1000) + 30;
    gitlab.fail(/merge_requests\/9$/, 429, { headers: { 'ratelimit-reset': String(reset) }, body: { message: 'Retry later' } });
    const second = (await client.mergeRequest(target, projectId, 9).catch((caught: unknown) => caught)) as GitLabRateLimitedError;
    expect(second.delayMs).toBeGreaterThan(28_000);
    expect(second.delayMs).toBeLessThanOrEqual(30_000);
  });

  it('a base URL the address policy refuses is a 400 before any request; an unreachable one is its own error', async () => {
    const strict = new GitLabClient({ request: new EndpointPolicy(false).request });
    const before = gitlab.requests.length;
    await expect(strict.project(target, projectId)).rejects.toBeInstanceOf(AppError);
    await expect(strict.project({ ...target, baseUrl: 'http://169.254.169.254' }, projectId)).rejects.toMatchObject({ statusCode: 400 });
    expect(gitlab.requests.length).toBe(before);
    await expect(client.project({ ...target, baseUrl: 'http://127.0.0.1:1' }, projectId)).rejects.toBeInstanceOf(GitLabUnreachableError);
    // A redirect is not followed (it would carry the token elsewhere).
    gitlab.fail(/projects\/\d+$/, 302, { times: 1, headers: { location: 'http://127.0.0.1:1/elsewhere' } });
    await expect(client.project(target, projectId)).rejects.toThrow(GitLabUnreachableError);
    expect((await client.project(target, projectId)).id).toBe(projectId);
  });

  it('reads Retry-After as an HTTP date too, and waits a minute when no header says', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(rateLimitWaitMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:12 GMT' }), now)).toBe(12_000);
    expect(rateLimitWaitMs(new Headers(), now)).toBe(60_000);
    expect(rateLimitWaitMs(new Headers({ 'retry-after': '999999' }), now)).toBe(3_600_000);
  });
});
