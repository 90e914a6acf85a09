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
  /** The owner when the host's rules take it from the delivery (a session's user); else their ownership decides. */
  ownerId: string | null;
  /** The host's id of the pull request's author (GitHub: the owner is the user linked to it). */
  authorId: number;
  /** The GitHub App installation it came through: without a registered author, its owner owns it (decisions.md §8). */
  installationId: number | null;
  /** GitHub's pull request id; null for a host whose keys the statement allocates from the connection and number (`IntakeRules.keys`). */
  prId: number | null;
  /**
   * The connection a delivery came through, and the ciphertext of the webhook secret its token
   * matched: a host's ownership holds only while that connection still holds that secret
   * (decisions.md §12), so a cached connection that was deleted or given a new secret since is
   * `disconnected`.
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
 * One host's part of the intake statement, as SQL over the delivery's row `i` (its fields are the
 * statement's columns: `author_id`, `installation_id`, `connection_id`, `connection_secret`,
 * `owner_id`, `pr_number`, …). The hosts' folders give them (`code-hosts/host-intake.ts`); the
 * statement below is written once around them.
 */
export interface IntakeRules {
  kind: HostKind;
  /** What ownership reads: each join is guarded by the delivery's host, and its alias is the host's own. */
  joins: ReadonlyArray<{ table: string; alias: string; on: string }>;
  /** Who owns the pull request: ONE expression, the user's id or null (then nothing is stored). */
  ownership: string;
  /**
   * The organization that owns it (decisions.md §15), or null for the owner's personal space: the
   * organization of the installation or connection it came through. A delivery that names none
   * (null) leaves a stored pull request where it is; moving an installation moves its pull requests.
   */
  organization: string;
  /** What a delivery nobody owns is told. */
  unowned: Extract<IntakeOutcome, 'unknown-author' | 'disconnected'>;
  /**
   * Where the host's internal keys live when its ids are not GitHub's: a table of (the delivery's
   * `connection_id`, its `pr_number`) to a `pr_id` whose default draws `pull_request_key_seq`. A
   * pull request's first delivery allocates its key there. Absent: the delivery gives `prId`.
   */
  keys?: { table: string; connection: string; number: string };
  /** Whether the repository is recorded in `repositories` (the user's repository links). */
  linksRepository: boolean;
}

const identifier = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not an SQL identifier: ${name}`);
  return name;
};

/**
 * The whole intake of a batch of deliveries in one statement, so one round trip and one commit
 * store them all, atomically:
 * - each delivery's owner is its host's `ownership` expression; without one, nothing is stored;
 * - a host with `keys` reads its pull request's key there, or allocates it on its first delivery;
 * - deliveries already seen are left out (a redelivery changes nothing);
 * - pull requests are upserted, except by a payload older than the stored one (out of order);
 * - repository links are inserted if missing and updated only if changed (no hot-row lock);
 * - a review starts for a reviewable action unless its head commit is already under review or
 *   reviewed; the conditional upsert decides under the row lock, so concurrent deliveries of one
 *   commit start one review (it resets the columns `ReviewRepository.startManual` resets);
 * - the deliveries are recorded, with whether they started a review (the relay's outbox).
 * A batch must not hold two deliveries of one pull request (or merge request) or one delivery id twice.
 */
function intakeStatement(rules: readonly IntakeRules[]): string {
  const kind = (rule: IntakeRules) => `'${identifier(rule.kind)}'`;
  const joins = rules.flatMap((rule) => rule.joins.map((join) => `left join ${identifier(join.table)} ${identifier(join.alias)} on i.provider = ${kind(rule)} and (${join.on})`));
  const owner = `case i.provider ${rules.map((rule) => `when ${kind(rule)} then (${rule.ownership})`).join(' ')} end`;
  const organization = `case i.provider ${rules.map((rule) => `when ${kind(rule)} then (${rule.organization})`).join(' ')} end`;
  const keyed = rules.filter((rule) => rule.keys !== undefined);
  const keyTables = keyed.map((rule, n) => {
    const { table, connection, number } = rule.keys!;
    const [t, c, k] = [identifier(table), identifier(connection), identifier(number)];
    return `known_${n} as (
  select r.ord, m.pr_id from raw r join ${t} m on m.${c} = r.connection_id and m.${k} = r.pr_number
  where r.provider = ${kind(rule)} and r.user_id is not null
),
new_${n} as (
  -- A pull request's first delivery allocates its key. The update (of nothing) is for concurrent first
  -- deliveries: the one that waited on the other's insert gets the row back, which do nothing would not.
  insert into ${t} (${c}, ${k})
  select r.connection_id, r.pr_number from raw r
  where r.provider = ${kind(rule)} and r.user_id is not null and not exists (select 1 from known_${n} k where k.ord = r.ord)
  on conflict (${c}, ${k}) do update set ${k} = excluded.${k}
  returning ${c} as connection_id, ${k} as pr_number, pr_id
),`;
  });
  const keyJoins = keyed.map((_, n) => `  left join known_${n} k${n} on k${n}.ord = r.ord\n  left join new_${n} n${n} on n${n}.connection_id = r.connection_id and n${n}.pr_number = r.pr_number`);
  const keyColumns = keyed.flatMap((_, n) => [`k${n}.pr_id`, `n${n}.pr_id`]);
  const linked = rules.filter((rule) => rule.linksRepository).map(kind);
  const links = linked.length === 0 ? 'false' : `provider in (${linked.join(', ')})`;
  return `
with raw as (
  select i.*, b.body_blob, ${owner} as user_id, ${organization} as org_id
  from json_to_recordset($1::json) as i(
    ord int, delivery_id text, event text, action text, provider text, owner_id uuid, author_id bigint, installation_id bigint, given_pr_id bigint, repository_id text, repository_name text,
    pr_number int, title text, state text, html_url text, diff text, draft boolean, merged boolean,
    head_branch text, base_branch text, base_sha text, head_sha text, merge_commit_sha text,
    commits_count int, additions int, deletions int, changed_files int, created_at timestamptz, updated_at timestamptz,
    repo_id bigint, repo_html_url text, repo_private boolean, reviewable boolean, awaits_config boolean, connection_id uuid, connection_secret text)
  join unnest($2::json[]) with ordinality as b(body_blob, position) on b.position = i.ord
  ${joins.join('\n  ')}
),
${keyTables.join('\n')}
input as (
  select r.*, coalesce(${['r.given_pr_id', ...keyColumns].join(', ')}) as pr_id
  from raw r
${keyJoins.join('\n')}
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
  insert into pull_requests (user_id, org_id, provider, installation_id, pr_id, repository_id, repository_name, pr_number, title, state, html_url, diff, draft, merged,
    head_branch, base_branch, base_sha, head_sha, merge_commit_sha, commits_count, additions, deletions, changed_files, body_blob,
    created_at, updated_at)
  select user_id, org_id, provider, installation_id, pr_id, repository_id, repository_name, pr_number, title, state, html_url, diff, draft, merged,
    head_branch, base_branch, base_sha, head_sha, merge_commit_sha, commits_count, additions, deletions, changed_files, body_blob,
    created_at, updated_at
  from fresh
  on conflict (pr_id) do update set
    user_id = excluded.user_id, org_id = coalesce(excluded.org_id, pull_requests.org_id), installation_id = coalesce(excluded.installation_id, pull_requests.installation_id), repository_id = excluded.repository_id, repository_name = excluded.repository_name,
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
  select user_id, repo_id, repository_name, repo_html_url, repo_private from fresh where ${links}
  on conflict (user_id, repository_id) do nothing
),
link_changes as (
  update repositories r set full_name = f.repository_name, html_url = f.repo_html_url, private = f.repo_private, updated_at = now()
  from fresh f
  where f.${links} and r.user_id = f.user_id and r.repository_id = f.repo_id
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
select i.ord, i.user_id is not null as owned, r.delivery_id is not null as stored, coalesce(r.starts_review, false) as review_started,
  coalesce(r.awaits_config, false) as awaits_config
from input i left join recorded r on r.delivery_id = i.delivery_id
order by i.ord`;
}

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
  private readonly statement: string;
  private readonly unowned: ReadonlyMap<string, IntakeOutcome>;

  /** `rules`: every host's, from the registry; the statement is built once from them. */
  constructor(
    private readonly database: DatabaseHandle,
    rules: readonly IntakeRules[],
  ) {
    this.statement = intakeStatement(rules);
    this.unowned = new Map(rules.map((rule) => [rule.kind, rule.unowned]));
  }

  async store(items: IntakeItem[]): Promise<IntakeOutcome[]> {
    const parameters = [batchFields(items), items.map((item) => item.bodyJson)];
    for (let attempt = 1; ; attempt++) {
      try {
        const rows = await this.database.prepared<{ owned: boolean; stored: boolean; review_started: boolean; awaits_config: boolean }>('webhook_intake', this.statement, parameters);
        return rows.map((row, index) =>
          !row.owned ? (this.unowned.get(items[index]!.provider) ?? 'unknown-author') : !row.stored ? 'duplicate' : row.review_started ? 'review-started' : row.awaits_config ? 'draft-deferred' : 'stored',
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
