import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EndpointPolicy } from '../../src/lib/endpoint-policy.js';
import { GitLabClient, type GitLabTarget } from '../../src/code-hosts/gitlab/gitlab-client.js';
import { GitLabRateLimitedError } from '../../src/code-hosts/gitlab/gitlab-errors.js';
import { MemoryKeyValueStore } from '../../src/adapters/kv/memory-key-value-store.js';
import { UnrecoverableJobError } from '../../src/adapters/queue/job-queue.js';
import { gitlabJobFailure } from '../../src/code-hosts/gitlab/gitlab-failure.js';
import { gitlabSession } from '../../src/code-hosts/gitlab/gitlab-host.js';
import { GitLabPublisher, type GitLabMergeRequestRef } from '../../src/code-hosts/gitlab/gitlab-publisher.js';
import { GitLabChangeReader } from '../../src/code-hosts/gitlab/gitlab-reader.js';
import { pino } from 'pino';
import type { Logger } from '../../src/lib/logger.js';
import { findingMarker, summaryMarker } from '../../src/publishing/markers.js';
import type { PublishableFinding } from '../../src/domain/findings.js';
import { resolveGone } from '../../src/publishing/resolve-gone.js';
import { readRepositoryConfig } from '../../src/repository-config/load-repository-config.js';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { ACCESS, FakeGitLab, lineCode, type FakeDiffEntry } from '../fakes/fake-gitlab.js';

const REFS = { base_sha: 'a'.repeat(40), start_sha: 'b'.repeat(40), head_sha: 'c'.repeat(40) };
const PATH = 'src/orders.ts';
// Old 1-4, new 1-5: line 2 added, line 3 `total` changed (old 3 removed, new 3 added), 4 and 5 context.
const ENTRY: FakeDiffEntry = {
  old_path: PATH,
  new_path: PATH,
  a_mode: '100644',
  b_mode: '100644',
  diff: '@@ -1,4 +1,5 @@\n import { db } from "./db";\n+import { log } from "./log";\n-const total = 0;\n+let total = 0;\n export function add(n) {\n   total += n;\n',
  new_file: false,
  renamed_file: false,
  deleted_file: false,
};

const finding = (id: string, line: number, endLine: number, replacement: string | null = null): PublishableFinding => ({
  id,
  file: PATH,
  line,
  endLine,
  severity: 'MAJOR',
  confidence: 90,
  title: `Finding ${id}`,
  comment: 'What is wrong.',
  failureScenario: '',
  suggestedFix: '',
  replacement,
});

describe('GitLab as a code host, against the fake GitLab', () => {
  let gitlab: FakeGitLab;
  let target: GitLabTarget;
  let mr: GitLabMergeRequestRef;
  let publisher: GitLabPublisher;
  const bot = { id: 501, username: 'review-bot', name: 'Review bot', bot: true };
  const developer = { id: 502, username: 'dev', name: 'Dev' };
  const client = new GitLabClient({ request: new EndpointPolicy(true).request });
  const log = pino({ level: 'silent' }) as Logger;
  const discussions = () => gitlab.mergeRequest(mr.projectId, mr.iid).discussions;

  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    const projectId = gitlab.addProject('acme/shop').id;
    gitlab.addMember(projectId, bot, ACCESS.maintainer);
    gitlab.addMember(projectId, developer, ACCESS.developer);
    target = { baseUrl: gitlab.url, token: gitlab.issueToken(bot) };
    gitlab.openMergeRequest(projectId, 4, { author: developer, diffRefs: REFS, diffs: [ENTRY] });
    mr = { target, projectId, iid: 4, webUrl: `${gitlab.url}/acme/shop/-/merge_requests/4`, tokenUserId: bot.id };
    publisher = new GitLabPublisher(client, mr, log);
  });
  afterAll(() => gitlab.stop());

  it('posts one discussion per finding with the position GitLab requires; a span has line_range and a suggestion counted from the anchored line', async () => {
    const outcome = await publisher.postFindings(REFS.head_sha, [finding('added', 2, 2), finding('span', 3, 5, 'let total = 0;\nexport function add(n: number) {\n  total += n;'), finding('off', 40, 40)]);
    expect(outcome.refused.map((refused) => refused.id)).toEqual(['off']);
    expect(outcome.posted.map((posted) => posted.findingId)).toEqual(['added', 'span']);
    const posted = gitlab.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/merge_requests/4/discussions'));
    expect(posted).toHaveLength(2);
    // An added line: new_line alone.
    expect(posted[0]!.body.position).toEqual({ position_type: 'text', ...REFS, old_path: PATH, new_path: PATH, new_line: 2 });
    // Ends on unchanged context: old_line too, and the range's line codes as GitLab counts them.
    expect(posted[1]!.body.position).toEqual({
      position_type: 'text',
      ...REFS,
      old_path: PATH,
      new_path: PATH,
      new_line: 5,
      old_line: 4,
      line_range: { start: { line_code: lineCode(PATH, 3, 3), type: 'new' }, end: { line_code: lineCode(PATH, 4, 5), type: null } },
    });
    const body = String(posted[1]!.body.body);
    expect(body.startsWith(findingMarker('span'))).toBe(true);
    expect(body).toContain('```suggestion:-2+0\nlet total = 0;');
    expect(outcome.posted[0]!.note.url).toBe(`${mr.webUrl}#note_${outcome.posted[0]!.note.id}`);

    // Read back by marker: a retry posts nothing twice.
    expect([...(await publisher.postedFindings()).keys()]).toEqual(['added', 'span']);
  });

  it('told what it will post, the read-back reads the merge request and its diff beside the discussions, once; told nothing, it reads neither', async () => {
    const fresh = new GitLabPublisher(client, mr, log);
    const before = gitlab.requests.length;
    await fresh.postedFindings();
    expect(gitlab.requests.slice(before).map((request) => `${request.method} ${request.path.replace(/.*merge_requests\/4/, '')}`)).toEqual(['GET /discussions']);

    const placing = new GitLabPublisher(client, mr, log);
    const start = gitlab.requests.length;
    await placing.postedFindings([finding('ahead', 2, 2)]);
    const reads = gitlab.requests.slice(start);
    expect(reads.map((request) => `${request.method} ${request.path.replace(/.*merge_requests\/4/, '')}`).sort()).toEqual(['GET ', 'GET /diffs', 'GET /discussions']);
    const outcome = await placing.postFindings(REFS.head_sha, [finding('ahead', 2, 2)]);
    expect(outcome.posted.map((posted) => posted.findingId)).toEqual(['ahead']);
    // Posting reads nothing more: the positions came with the read-back.
    expect(gitlab.requests.slice(start).filter((request) => request.method === 'GET')).toHaveLength(3);
  });

  it('a position GitLab refuses (400) goes to the summary; the rest is posted', async () => {
    gitlab.fail(/^POST .*merge_requests\/4\/discussions$/, 400, { times: 1, body: { message: '400 Bad request - Note {:line_code=>["must be a valid line code"]}' } });
    const outcome = await publisher.postFindings(REFS.head_sha, [finding('refused', 2, 2), finding('accepted', 4, 4)]);
    expect(outcome.refused.map((refused) => refused.id)).toEqual(['refused']);
    expect(outcome.posted.map((posted) => posted.findingId)).toEqual(['accepted']);
    expect(publisher.refusedReason).toBe('GitLab could not place it on the diff');
  });

  it('resolves the discussion of a gone finding once, and records it', async () => {
    const posted = await publisher.postedFindings();
    const resolved: string[] = [];
    await resolveGone(publisher, [{ findingId: 'added', commentId: posted.get('added')!.id }], 'd'.repeat(40), async (id) => void resolved.push(id), log);
    expect(resolved).toEqual(['added']);
    const discussion = discussions().find((entry) => entry.notes[0]!.id === posted.get('added')!.id)!;
    expect(discussion.notes.every((note) => note.resolved)).toBe(true);
    expect(gitlab.requests.filter((request) => request.method === 'PUT' && request.path.includes('/discussions/')).at(-1)!.query).toMatchObject({ resolved: 'true' });
  });

  it('one summary note, created once and edited in place; an unchanged body is not sent again', async () => {
    const first = await publisher.upsertSummary(`${summaryMarker()}\nv1`);
    const second = await publisher.upsertSummary(`${summaryMarker()}\nv2`);
    const before = gitlab.requests.length;
    await publisher.upsertSummary(`${summaryMarker()}\nv2`);
    expect(second.id).toBe(first.id);
    expect(gitlab.requests.slice(before).every((request) => request.method === 'GET')).toBe(true);
    const summaries = discussions().flatMap((entry) => entry.notes).filter((note) => note.body.startsWith(summaryMarker()));
    expect(summaries).toEqual([expect.objectContaining({ id: first.id, body: `${summaryMarker()}\nv2`, edits: 1 })]);
    expect((await publisher.ownNotes()).map((note) => note.id)).toEqual([first.id]);
  });

  it('the commit status: running, then success with the counts, then failed with the reason; the same state twice is no error', async () => {
    const running = { phase: 'running' as const, blocking: 0, title: 'Reviewing', summary: '', detailsUrl: 'https://review.example/pulls/x' };
    await publisher.postStatus(REFS.head_sha, running, null);
    await publisher.postStatus(REFS.head_sha, running, null);
    await publisher.postStatus(REFS.head_sha, { ...running, phase: 'completed', blocking: 2, title: '2 critical or major findings' }, null);
    await publisher.postStatus('e'.repeat(40), { ...running, phase: 'failed', title: 'Review failed', reason: 'model timed out' }, null);
    const statuses = gitlab.project(mr.projectId).statuses.map(({ sha, status, name, description, target_url }) => ({ sha: sha.slice(0, 1), status, name, description, target_url }));
    expect(statuses).toEqual([
      { sha: 'c', status: 'running', name: 'AI review', description: 'Reviewing', target_url: 'https://review.example/pulls/x' },
      { sha: 'c', status: 'success', name: 'AI review', description: '2 critical or major findings', target_url: 'https://review.example/pulls/x' },
      { sha: 'e', status: 'failed', name: 'AI review', description: 'Review failed: model timed out', target_url: 'https://review.example/pulls/x' },
    ]);
  });

  it('acknowledges a command note with the eyes award, once', async () => {
    const command = gitlab.addNote(mr.projectId, mr.iid, '/help', developer);
    await publisher.acknowledge(command.id);
    await publisher.acknowledge(command.id);
    expect(gitlab.mergeRequest(mr.projectId, mr.iid).awards.filter((award) => award.noteId === command.id).map((award) => [award.name, award.user.id])).toEqual([['eyes', bot.id]]);
  });

  it('reads the diff, a push and .ai-review.yml from the target branch (cached per instance and project)', async () => {
    const reader = new GitLabChangeReader(client, mr);
    expect(parseUnifiedDiff(await reader.changeDiff())[0]).toMatchObject({ path: PATH, additions: 2, deletions: 1 });
    gitlab.setCompare(mr.projectId, REFS.base_sha, REFS.head_sha, [ENTRY]);
    expect(await reader.pushDiff(REFS.base_sha, REFS.head_sha)).toContain(`diff --git a/${PATH} b/${PATH}`);
    gitlab.setFile(mr.projectId, REFS.base_sha, '.ai-review.yml', 'reviews:\n  mode: deep\n  drafts: true\n');
    const kv = new MemoryKeyValueStore();
    expect(await readRepositoryConfig(kv, reader, REFS.base_sha)).toMatchObject({ mode: 'deep', drafts: true });
    expect(reader.repositoryKey).toBe(`gitlab:${gitlab.url}#${mr.projectId}`);
  });

  it('a refused token marks the connection broken and ends the job; a 429 waits as GitLab asked', async () => {
    const broken: Array<[string, string]> = [];
    const revoked = gitlab.issueToken(bot);
    gitlab.revokeToken(revoked);
    const session = gitlabSession({ client, log, markBroken: async (id, reason) => void broken.push([id, reason]) }, 'conn-1', { ...mr, target: { ...target, token: revoked } });
    const error = await session.run((host) => host.ownNotes()).catch((caught: unknown) => caught);
    expect(broken).toEqual([['conn-1', '401 Unauthorized']]);
    expect(session.failure(error)).toBeInstanceOf(UnrecoverableJobError);

    gitlab.fail(/discussions$/, 429, { times: 1, headers: { 'retry-after': '3' }, body: { message: 'Retry later' } });
    // A new job's publisher: the shared one keeps what it read (a publisher reads the discussions once per job).
    const limited = await new GitLabPublisher(client, mr, log).ownNotes().catch((caught: unknown) => caught);
    expect(gitlabJobFailure(limited)).toBeInstanceOf(GitLabRateLimitedError);
    expect(gitlabJobFailure(limited)).toMatchObject({ delayMs: 3000 });
  });
});
