import type { HostKind } from '../domain/host-kinds.js';
import { isTransientConflict } from '../db/errors.js';
import type { DatabaseHandle } from '../db/database.js';
import { PREVIOUS_RUN_SNAPSHOT } from './review-repository.js';

/**
 * One delivery, with the fields the intake stores; `bodyJson` is the raw payload text. The other
 * strings hold no character PostgreSQL refuses in text (the webhook schema replaced them).
 */
export interface IntakeItem {
  deliveryId: string;
  /** The event recorded with the delivery (`pull_request`, GitLab's `Merge Request Hook`). */
  event: string;
  action: string;
  provider: HostKind;
  /** The owner when the host says it outright (a GitLab connection's user); else decided from the author or installation. */
  ownerId: string | null;
  /** GitHub's id of the pull request's author: the owner is the user linked to it. */
  authorId: number;
  /** The GitHub App installation it came through: without a registered author, its owner owns it (decisions.md §8). */
  installationId: number | null;
  /** GitHub's pull request id; null for a GitLab merge request, whose key the statement allocates from its connection and iid. */
  prId: number | null;
  /**
   * A GitLab delivery's connection, and the ciphertext of the webhook secret its token matched: the
   * statement stores it only while that connection still holds that secret (decisions.md §12), so a
   * cached connection that was deleted or given a new secret since is `disconnected`.
   */
  connectionId: string | null;
  connectionSecret: string | null;
  repositoryId: string;
  repositoryName: string;
  prNumber: number;
  title: string;
  state: string;
  htmlUrl: string | null;
  diff: string;
  draft: boolean;
  merged: boolean;
  headBranch: string;
  baseBranch: string;
  baseSha: string;
  headSha: string;
  mergeCommitSha: string | null;
  commitsCount: number | null;
  additions: number | null;
  deletions: number | null;
  changedFiles: number | null;
  createdAt: string;
  updatedAt: string;
  repoId: number;
  repoHtmlUrl: string | null;
  repoPrivate: boolean;
  /** The action may start a review (decisions.md §6); the statement decides whether it does. */
  reviewable: boolean;
  /** A draft whose repository configuration is not known yet: recorded for the `undecidedDraft` job, no run started. */
  awaitsConfig: boolean;
  bodyJson: string;
}

export type IntakeOutcome = 'unknown-author' | 'duplicate' | 'stored' | 'review-started' | 'draft-deferred' | 'disconnected';

/**
 * What a webhook run's start sets on the review row when it starts one: the conditional upsert
 * starts a run unless its head commit is already under review or reviewed (a failed run may go again).
 */
const START_WEBHOOK_RUN = `
  on conflict (id) do update set
    user_id = excluded.user_id, head_sha = excluded.head_sha, mode = excluded.mode, trigged_by = excluded.trigged_by,
    run_id = gen_random_uuid(), state = 'WEBHOOK_RECEIVED', status = 'pending', attempt_number = 1, duration = 0,
    failure_reason = null, incremental_diff = null, started_at = now(), completed_at = null,
    requested_mode = null, previous_run = ${PREVIOUS_RUN_SNAPSHOT}
  where reviews.head_sha is distinct from excluded.head_sha or reviews.status = 'failed'`;

/**
 * The whole intake of a batch of deliveries in one statement, so one round trip and one commit
 * store them all, atomically:
 * - each delivery's owner is the user linked to the author's GitHub id, else (through the GitHub App)
 *   the owner of the installation it came through; without either, nothing is stored;
 * - a GitLab delivery's owner is its connection's user, while the connection holds the secret the
 *   token matched (else it is `disconnected`, nothing stored); its merge request's key is read from
 *   `gitlab_merge_requests`, or allocated there on its first delivery;
 * - deliveries already seen are left out (a redelivery changes nothing);
 * - pull requests are upserted, except by a payload older than the stored one (out of order);
 * - repository links are inserted if missing and updated only if changed (no hot-row lock);
 * - a review starts for a reviewable action unless its head commit is already under review or
 *   reviewed; the conditional upsert decides under the row lock, so concurrent deliveries of one
 *   commit start one review (it resets the columns `ReviewRepository.startManual` resets);
 * - the deliveries are recorded, with whether they started a review (the relay's outbox).
 * A batch must not hold two deliveries of one pull request (or merge request) or one delivery id twice.
 */
const INTAKE = `
with raw as (
  select i.*, b.body_blob,
    case when i.connection_id is null then coalesce(i.owner_id, u.id, gi.user_id) when c.id is not null then c.user_id end as user_id
  from json_to_recordset($1::json) as i(
    ord int, delivery_id text, event text, action text, provider text, owner_id uuid, author_id bigint, installation_id bigint, given_pr_id bigint, repository_id text, repository_name text,
    pr_number int, title text, state text, html_url text, diff text, draft boolean, merged boolean,
    head_branch text, base_branch text, base_sha text, head_sha text, merge_commit_sha text,
    commits_count int, additions int, deletions int, changed_files int, created_at timestamptz, updated_at timestamptz,
    repo_id bigint, repo_html_url text, repo_private boolean, reviewable boolean, awaits_config boolean, connection_id uuid, connection_secret text)
  join unnest($2::json[]) with ordinality as b(body_blob, position) on b.position = i.ord
  left join users u on i.connection_id is null and u.codehost_user_id = i.author_id
  left join github_installations gi on gi.id = i.installation_id and gi.deleted_at is null and not gi.suspended
  left join gitlab_connections c on c.id = i.connection_id and c.webhook_secret = i.connection_secret
),
known_mr as (
  select r.ord, m.pr_id from raw r join gitlab_merge_requests m on m.connection_id = r.connection_id and m.iid = r.pr_number
  where r.user_id is not null
),
new_mr as (
  -- A merge request's first delivery allocates its key. The update (of nothing) is for concurrent first
  -- deliveries: the one that waited on the other's insert gets the row back, which do nothing would not.
  insert into gitlab_merge_requests (connection_id, iid)
  select r.connection_id, r.pr_number from raw r
  where r.connection_id is not null and r.user_id is not null and not exists (select 1 from known_mr k where k.ord = r.ord)
  on conflict (connection_id, iid) do update set iid = excluded.iid
  returning connection_id, iid, pr_id
),
input as (
  select r.*, coalesce(r.given_pr_id, k.pr_id, n.pr_id) as pr_id
  from raw r
  left join known_mr k on k.ord = r.ord
  left join new_mr n on n.connection_id = r.connection_id and n.iid = r.pr_number
),
fresh as (
  select i.* from input i
  where i.user_id is not null and not exists (select 1 from webhook_deliveries d where d.delivery_id = i.delivery_id)
),
decision as (
  select f.pr_id,
         f.reviewable and (p.id is null or (f.updated_at >= p.updated_at and (r.head_sha is distinct from f.head_sha or r.status = 'failed'))) as wants_review
  from fresh f
  left join pull_requests p on p.pr_id = f.pr_id
  left join reviews r on r.id = p.id
),
upserted as (
  insert into pull_requests (user_id, provider, installation_id, pr_id, repository_id, repository_name, pr_number, title, state, html_url, diff, draft, merged,
    head_branch, base_branch, base_sha, head_sha, merge_commit_sha, commits_count, additions, deletions, changed_files, body_blob,
    created_at, updated_at)
  select user_id, provider, installation_id, pr_id, repository_id, repository_name, pr_number, title, state, html_url, diff, draft, merged,
    head_branch, base_branch, base_sha, head_sha, merge_commit_sha, commits_count, additions, deletions, changed_files, body_blob,
    created_at, updated_at
  from fresh
  on conflict (pr_id) do update set
    user_id = excluded.user_id, installation_id = coalesce(excluded.installation_id, pull_requests.installation_id), repository_id = excluded.repository_id, repository_name = excluded.repository_name,
    pr_number = excluded.pr_number, title = excluded.title, state = excluded.state, html_url = excluded.html_url,
    diff = excluded.diff, draft = excluded.draft, merged = excluded.merged, head_branch = excluded.head_branch,
    base_branch = excluded.base_branch, base_sha = excluded.base_sha, head_sha = excluded.head_sha,
    merge_commit_sha = excluded.merge_commit_sha, commits_count = excluded.commits_count,
    -- A host whose events carry no counts (GitLab) keeps the ones its last run took from the diff.
    additions = coalesce(excluded.additions, pull_requests.additions), deletions = coalesce(excluded.deletions, pull_requests.deletions),
    changed_files = coalesce(excluded.changed_files, pull_requests.changed_files), body_blob = excluded.body_blob,
    updated_at = excluded.updated_at,
    review_status = case when exists (select 1 from decision d where d.pr_id = excluded.pr_id and d.wants_review)
                         then 'pending' else pull_requests.review_status end
  where excluded.updated_at >= pull_requests.updated_at
  returning id, pr_id, user_id, head_sha
),
links as (
  insert into repositories (user_id, repository_id, full_name, html_url, private)
  select user_id, repo_id, repository_name, repo_html_url, repo_private from fresh where provider = 'github'
  on conflict (user_id, repository_id) do nothing
),
link_changes as (
  update repositories r set full_name = f.repository_name, html_url = f.repo_html_url, private = f.repo_private, updated_at = now()
  from fresh f
  where f.provider = 'github' and r.user_id = f.user_id and r.repository_id = f.repo_id
    and (r.full_name, r.html_url, r.private) is distinct from (f.repository_name, f.repo_html_url, f.repo_private)
),
started as (
  insert into reviews (id, pr_id, user_id, head_sha, mode, trigged_by)
  select u.id, u.pr_id, u.user_id, u.head_sha, 'focused', 'webhook'
  from upserted u join decision d on d.pr_id = u.pr_id
  where d.wants_review
  ${START_WEBHOOK_RUN}
  returning pr_id
),
recorded as (
  insert into webhook_deliveries (delivery_id, event, action, user_id, pr_id, head_sha, starts_review, awaits_config)
  select f.delivery_id, f.event, f.action, f.user_id, f.pr_id, f.head_sha, exists (select 1 from started s where s.pr_id = f.pr_id), f.awaits_config
  from fresh f
  on conflict (delivery_id) do nothing
  returning delivery_id, starts_review, awaits_config
)
select i.ord, i.connection_id is not null and i.user_id is null as disconnected, i.user_id is not null as owned, r.delivery_id is not null as stored, coalesce(r.starts_review, false) as review_started,
  coalesce(r.awaits_config, false) as awaits_config
from input i left join recorded r on r.delivery_id = i.delivery_id
order by i.ord`;

/**
 * Starts the run of a draft's delivery that waited for its repository configuration (which reviews
 * drafts), if the pull request is still that open draft at that commit, and makes the delivery the
 * relay's to enqueue until it is marked.
 */
const START_DEFERRED_DRAFT = `
with pr as (
  select p.id, p.pr_id, p.user_id, p.head_sha
  from webhook_deliveries d join pull_requests p on p.pr_id = d.pr_id
  where d.delivery_id = $1 and d.awaits_config and p.head_sha = d.head_sha and p.state = 'open' and p.draft
),
started as (
  insert into reviews (id, pr_id, user_id, head_sha, mode, trigged_by)
  select id, pr_id, user_id, head_sha, 'focused', 'webhook' from pr
  ${START_WEBHOOK_RUN}
  returning id
),
status as (
  update pull_requests set review_status = 'pending' where id in (select id from started)
),
recorded as (
  update webhook_deliveries set starts_review = true, enqueued_at = null
  where delivery_id = $1 and exists (select 1 from started)
)
select exists (select 1 from started) as started`;

const SMALL_FIELDS: Array<[keyof IntakeItem, string]> = [
  ['deliveryId', 'delivery_id'],
  ['event', 'event'],
  ['action', 'action'],
  ['provider', 'provider'],
  ['ownerId', 'owner_id'],
  ['authorId', 'author_id'],
  ['installationId', 'installation_id'],
  ['prId', 'given_pr_id'],
  ['repositoryId', 'repository_id'],
  ['repositoryName', 'repository_name'],
  ['prNumber', 'pr_number'],
  ['title', 'title'],
  ['state', 'state'],
  ['htmlUrl', 'html_url'],
  ['diff', 'diff'],
  ['draft', 'draft'],
  ['merged', 'merged'],
  ['headBranch', 'head_branch'],
  ['baseBranch', 'base_branch'],
  ['baseSha', 'base_sha'],
  ['headSha', 'head_sha'],
  ['mergeCommitSha', 'merge_commit_sha'],
  ['commitsCount', 'commits_count'],
  ['additions', 'additions'],
  ['deletions', 'deletions'],
  ['changedFiles', 'changed_files'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
  ['repoId', 'repo_id'],
  ['repoHtmlUrl', 'repo_html_url'],
  ['repoPrivate', 'repo_private'],
  ['reviewable', 'reviewable'],
  ['awaitsConfig', 'awaits_config'],
  ['connectionId', 'connection_id'],
  ['connectionSecret', 'connection_secret'],
];

/**
 * The batch's fields as one JSON array (ordinals from 1, as `with ordinality` counts). The payloads
 * travel apart, as an array of their own texts: json functions would unescape them, and refuse
 * `\u0000`, while a `json` value keeps the text as it arrived.
 */
function batchFields(items: IntakeItem[]): string {
  return JSON.stringify(
    items.map((item, index) => {
      const fields: Record<string, unknown> = { ord: index + 1 };
      for (const [key, column] of SMALL_FIELDS) fields[column] = item[key];
      return fields;
    }),
  );
}

/** Runs of the intake statement when it loses a deadlock or a serialization race. */
const INTAKE_ATTEMPTS = 3;

export class WebhookIntakeRepository {
  constructor(private readonly database: DatabaseHandle) {}

  async store(items: IntakeItem[]): Promise<IntakeOutcome[]> {
    const parameters = [batchFields(items), items.map((item) => item.bodyJson)];
    for (let attempt = 1; ; attempt++) {
      try {
        const rows = await this.database.prepared<{ disconnected: boolean; owned: boolean; stored: boolean; review_started: boolean; awaits_config: boolean }>('webhook_intake', INTAKE, parameters);
        return rows.map((row) =>
          row.disconnected ? 'disconnected' : !row.owned ? 'unknown-author' : !row.stored ? 'duplicate' : row.review_started ? 'review-started' : row.awaits_config ? 'draft-deferred' : 'stored',
        );
      } catch (error) {
        // The statement locks the pull request and its review, as a worker finishing a run does:
        // PostgreSQL may pick it as a deadlock's victim. It wrote nothing; GitHub must not see a 500.
        if (attempt >= INTAKE_ATTEMPTS || !isTransientConflict(error)) throw error;
      }
    }
  }

  /** True when the deferred draft's run started (see START_DEFERRED_DRAFT). */
  async startDeferredDraft(deliveryId: string): Promise<boolean> {
    const [row] = await this.database.prepared<{ started: boolean }>('webhook_start_deferred_draft', START_DEFERRED_DRAFT, [deliveryId]);
    return row?.started ?? false;
  }
}
