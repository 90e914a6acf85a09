import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS, FakeGitLab, lineCode, type FakeDiffEntry } from '../fakes/fake-gitlab.js';
import { createGitFixture } from '../helpers/git-fixture.js';

const REFS = { base_sha: 'b'.repeat(40), start_sha: 'b'.repeat(40), head_sha: 'c'.repeat(40) };
const entry = (path: string, diff: string, extra: Partial<FakeDiffEntry> = {}): FakeDiffEntry => ({
  old_path: path,
  new_path: path,
  a_mode: '100644',
  b_mode: '100644',
  diff,
  new_file: false,
  renamed_file: false,
  deleted_file: false,
  generated_file: false,
  ...extra,
});
const CHANGED = entry('src/a.ts', '@@ -1,3 +1,4 @@\n const a = 1;\n+const b = 2;\n+const c = 3;\n-export { a };\n+export { a, b, c };\n');
const DIFFS = [CHANGED, ...[1, 2, 3, 4].map((n) => entry(`docs/${n}.md`, `@@ -0,0 +1 @@\n+page ${n}\n`, { new_file: true, a_mode: '0' }))];

/** The fake speaks GitLab's REST v4: the official client `@gitbeaker/rest`, pointed at it, works unchanged. */
describe('the fake GitLab', () => {
  let gitlab: FakeGitLab;
  let api: InstanceType<typeof Gitlab>;
  const maintainer = { id: 11, username: 'maria', name: 'Maria' };
  const developer = { id: 12, username: 'dev', name: 'Dev' };
  const bot = { id: 13, username: 'project_5_bot_1a2b', name: 'review bot', bot: true };
  let projectId: number;

  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    projectId = gitlab.addProject('group/sub/project').id;
    gitlab.addMember(projectId, maintainer, ACCESS.maintainer);
    gitlab.addMember(projectId, developer, ACCESS.developer);
    gitlab.addUser(bot);
    gitlab.openMergeRequest(projectId, 3, { author: developer, diffRefs: REFS, diffs: DIFFS, title: 'Add b and c' });
    api = new Gitlab({ host: gitlab.url, token: gitlab.issueToken(maintainer) });
  });
  afterAll(() => gitlab.stop());

  const status = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: { cause?: { response?: Response } }) => error.cause?.response?.status,
    );

  it('shows a project by id and by its URL-encoded path; a user and a member with the access level', async () => {
    const byPath = await api.Projects.show('group/sub/project');
    expect(byPath).toMatchObject({ id: projectId, path_with_namespace: 'group/sub/project', web_url: `${gitlab.url}/group/sub/project` });
    expect(await api.Projects.show(projectId)).toMatchObject({ id: projectId });
    expect(await api.ProjectMembers.show(projectId, developer.id, { includeInherited: true })).toMatchObject({ id: developer.id, access_level: ACCESS.developer });
    expect(await status(api.ProjectMembers.show(projectId, bot.id, { includeInherited: true }))).toBe(404);
    expect(await api.Users.show(bot.id)).toMatchObject({ username: bot.username, bot: true });
  });

  it('creates, lists and deletes project hooks, never showing their secret token', async () => {
    const hook = await api.ProjectHooks.add(projectId, 'https://review.example/webhook/gitlab', { token: 'hook-secret', mergeRequestsEvents: true, noteEvents: true, pushEvents: false });
    expect(hook).toMatchObject({ url: 'https://review.example/webhook/gitlab', merge_requests_events: true, note_events: true, push_events: false });
    expect(JSON.stringify(await api.ProjectHooks.all(projectId))).not.toContain('hook-secret');
    expect(gitlab.project(projectId).hooks[0]!.token).toBe('hook-secret');
    await api.ProjectHooks.remove(projectId, hook.id);
    expect(await api.ProjectHooks.all(projectId)).toEqual([]);
    // Hooks need Maintainer access.
    const asDeveloper = new Gitlab({ host: gitlab.url, token: gitlab.issueToken(developer) });
    expect(await status(asDeveloper.ProjectHooks.add(projectId, 'https://review.example/webhook/gitlab'))).toBe(403);
  });

  it('pages merge-request diffs with the Link and X-* headers, which the client follows to the end', async () => {
    expect(await api.MergeRequests.show(projectId, 3)).toMatchObject({ iid: 3, diff_refs: REFS, sha: REFS.head_sha, draft: false });
    const all = await api.MergeRequests.allDiffs(projectId, 3, { perPage: 2 });
    expect(all.map((diff) => diff.new_path)).toEqual(DIFFS.map((diff) => diff.new_path));
    const first = await api.MergeRequests.allDiffs(projectId, 3, { perPage: 2, page: 1, showExpanded: true });
    expect(first.data).toHaveLength(2);
    expect(first.paginationInfo).toMatchObject({ total: 5, next: 2, current: 1, totalPages: 3, perPage: 2 });
  });

  it('compares commits, reads raw files and the archive', async () => {
    gitlab.setCompare(projectId, 'b'.repeat(40), 'c'.repeat(40), [CHANGED]);
    gitlab.setFile(projectId, 'main', '.ai-review.yml', 'reviews:\n  drafts: true\n');
    gitlab.setArchive(projectId, 'c'.repeat(40), Buffer.from([0x1f, 0x8b, 8, 0]));
    const compare = await api.Repositories.compare(projectId, 'b'.repeat(40), 'c'.repeat(40));
    expect(compare.diffs).toEqual([expect.objectContaining({ new_path: 'src/a.ts', diff: CHANGED.diff })]);
    expect(await api.RepositoryFiles.showRaw(projectId, '.ai-review.yml', 'main')).toBe('reviews:\n  drafts: true\n');
    expect(await status(api.RepositoryFiles.showRaw(projectId, 'missing.txt', 'main'))).toBe(404);
    const archive = await api.Repositories.showArchive(projectId, { sha: 'c'.repeat(40) });
    expect(Buffer.from(await archive.arrayBuffer())).toEqual(Buffer.from([0x1f, 0x8b, 8, 0]));
  });

  it('serves a git repository: the recursive tree paged, the archive under one top folder, raw files at a commit', async () => {
    const fixture = createGitFixture([{ 'README.md': '# Demo\n', 'src/a.ts': 'export const a = 1;\n', 'src/deep/b.ts': 'export const b = 2;\n' }]);
    const sha = fixture.shas[0]!;
    const repositoryProject = gitlab.addProject('group/served').id;
    gitlab.addMember(repositoryProject, maintainer, ACCESS.maintainer);
    gitlab.setRepository(repositoryProject, fixture.dir);
    try {
      const tree = await api.Repositories.allRepositoryTrees(repositoryProject, { recursive: true, ref: sha, perPage: 2 });
      expect(tree.map((entry) => [entry.type, entry.path]).sort()).toEqual([['blob', 'README.md'], ['blob', 'src/a.ts'], ['blob', 'src/deep/b.ts'], ['tree', 'src'], ['tree', 'src/deep']]);
      expect(tree[0]).toEqual({ id: expect.stringMatching(/^[0-9a-f]{40}$/), name: expect.any(String), type: expect.any(String), path: expect.any(String), mode: expect.any(String) });
      expect(await status(api.Repositories.allRepositoryTrees(repositoryProject, { recursive: true, ref: 'd'.repeat(40) }))).toBe(404);
      const archive = Buffer.from(await (await api.Repositories.showArchive(repositoryProject, { sha })).arrayBuffer());
      const names = execFileSync('tar', ['-tzf', '-'], { input: archive, encoding: 'utf8' }).split('\n').filter(Boolean);
      expect(names).toContain(`served-${sha}-${sha}/src/deep/b.ts`);
      expect(await api.RepositoryFiles.showRaw(repositoryProject, 'src/a.ts', sha)).toBe('export const a = 1;\n');
    } finally {
      rmSync(fixture.dir, { recursive: true, force: true });
    }
  });

  it('posts commit statuses, refusing a transition to the same state', async () => {
    const sha = REFS.head_sha;
    expect(await api.Commits.editStatus(projectId, sha, 'running', { name: 'AI review', targetUrl: 'https://review.example/pulls/1' })).toMatchObject({ status: 'running', name: 'AI review', target_url: 'https://review.example/pulls/1' });
    expect(await status(api.Commits.editStatus(projectId, sha, 'running', { name: 'AI review' }))).toBe(400);
    expect(await api.Commits.editStatus(projectId, sha, 'success', { name: 'AI review', description: 'No critical or major findings' })).toMatchObject({ status: 'success' });
  });

  it('places diff discussions by position (line codes for a range), refuses a position off the diff, resolves and replies', async () => {
    const base = { baseSha: REFS.base_sha, startSha: REFS.start_sha, headSha: REFS.head_sha, positionType: 'text', oldPath: 'src/a.ts', newPath: 'src/a.ts' };
    const range = {
      ...base,
      newLine: '3',
      lineRange: { start: { lineCode: lineCode('src/a.ts', 2, 2), type: 'new' }, end: { lineCode: lineCode('src/a.ts', 2, 3), type: 'new' } },
    };
    const discussion = await api.MergeRequestDiscussions.create(projectId, 3, 'b and c are unused', { position: range as never });
    expect(discussion.notes![0]).toMatchObject({ type: 'DiffNote', resolvable: true, position: { new_line: 3, old_line: null, line_range: { start: { new_line: 2 }, end: { new_line: 3 } } } });
    // An unchanged line needs both old_line and new_line; new_line alone finds no line code.
    expect(await status(api.MergeRequestDiscussions.create(projectId, 3, 'context', { position: { ...base, newLine: '1', oldLine: '1' } as never }))).toBe('resolved');
    expect(await status(api.MergeRequestDiscussions.create(projectId, 3, 'context', { position: { ...base, newLine: '1' } as never }))).toBe(400);
    expect(await status(api.MergeRequestDiscussions.create(projectId, 3, 'stale', { position: { ...base, headSha: 'd'.repeat(40), newLine: '2' } as never }))).toBe(400);
    expect(await status(api.MergeRequestDiscussions.create(projectId, 3, 'far', { position: { ...base, newLine: '40' } as never }))).toBe(400);

    const resolved = await api.MergeRequestDiscussions.resolve(projectId, 3, discussion.id, true);
    expect(resolved.notes).toEqual([expect.objectContaining({ resolved: true })]);
    const reply = await api.MergeRequestDiscussions.addNote(projectId, 3, discussion.id, 'Addressed in cccccccc');
    expect(reply).toMatchObject({ body: 'Addressed in cccccccc', type: 'DiffNote' });
    const listed = await api.MergeRequestDiscussions.all(projectId, 3);
    expect(listed.find((candidate) => candidate.id === discussion.id)!.notes).toHaveLength(2);
  });

  it('creates and edits notes, and awards an emoji on a note once', async () => {
    const note = await api.MergeRequestNotes.create(projectId, 3, 'Summary v1');
    expect(note).toMatchObject({ body: 'Summary v1', noteable_type: 'MergeRequest', noteable_iid: 3, author: { id: maintainer.id } });
    expect(await api.MergeRequestNotes.edit(projectId, 3, note.id, { body: 'Summary v2' })).toMatchObject({ body: 'Summary v2' });
    const command = gitlab.addNote(projectId, 3, '/review deep', developer);
    expect(await api.MergeRequestNoteAwardEmojis.award(projectId, 3, command.id, 'eyes')).toMatchObject({ name: 'eyes', awardable_id: command.id, awardable_type: 'Note' });
    expect(await status(api.MergeRequestNoteAwardEmojis.award(projectId, 3, command.id, 'eyes'))).toBe(404);
    // Another user's note cannot be edited.
    expect(await status(api.MergeRequestNotes.edit(projectId, 3, command.id, { body: 'changed' }))).toBe(403);
  });

  it("answers an unknown token 401, a project the token cannot see 404, a read_api token's write 403", async () => {
    expect(await status(new Gitlab({ host: gitlab.url, token: 'glpat-unknown' }).Projects.show(projectId))).toBe(401);
    const stranger = new Gitlab({ host: gitlab.url, token: gitlab.issueToken({ id: 99, username: 'stranger', name: 'Stranger' }) });
    expect(await status(stranger.Projects.show(projectId))).toBe(404);
    const reader = new Gitlab({ host: gitlab.url, token: gitlab.issueToken(maintainer, ['read_api']) });
    expect(await reader.Projects.show(projectId)).toMatchObject({ id: projectId });
    expect(await status(reader.MergeRequestNotes.create(projectId, 3, 'x'))).toBe(403);
  });
});
