import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../src/db/database.js';

export interface ListSeed {
  /** The bench user's pull requests (each with a review), and all pull requests in the table. */
  userRows: number;
  tableRows: number;
  /** The bench user's chat threads. */
  threads: number;
}

/** Nouns of the generated titles: a search for one of them matches 1 title in 30. */
export const TITLE_NOUNS = [
  'parser', 'cache', 'login', 'webhook', 'billing', 'search', 'export', 'import', 'scheduler', 'queue',
  'router', 'session', 'upload', 'invoice', 'profile', 'settings', 'dashboard', 'metrics', 'logger', 'mailer',
  'tokenizer', 'renderer', 'migration', 'backup', 'checkout', 'cart', 'payment', 'report', 'sitemap', 'locale',
];
export const REPOSITORY_COUNT = 20;
const OTHER_USERS = 99;
/** The organizations' lists (`seedOrganizationLists`): pull requests spread over this many of each. */
export const ORGANIZATIONS = 20;
export const ORGANIZATION_USERS = 200;

/**
 * Loads the bench user's pull requests, reviews and threads, and other users' pull requests, with
 * `generate_series` in a few statements (seconds, not minutes). Titles come from a vocabulary,
 * `updated_at` values are spread over a year by a hash of the row number (distinct to the
 * millisecond in practice, and in no relation to the rows' order on disk, as after real updates).
 *
 * Payloads: the bench user's are 24 KB, 19 KB of text that compresses and 5 KB that does not (hex),
 * so TOAST keeps ~5 KB out of line per row, as a real payload's; with a cached diff of 8 KB (which
 * compresses). Other users' rows carry a 1 KB payload and no diff, so that a million rows fit
 * on a shared disk: the lists never read payloads, and the indexes are what those rows are for.
 *
 * The table's secondary indexes are dropped during the load and created again from their own
 * definitions (pg_indexes), which is much faster than maintaining them row by row.
 */
export async function seedLists(db: Executor, userId: string, seed: ListSeed): Promise<void> {
  const indexes = await queryRows<{ indexname: string; indexdef: string }>(
    db,
    sql`select indexname, indexdef from pg_indexes where tablename = 'pull_requests' and indexname like '%_idx'`,
  );
  for (const { indexname } of indexes) await db.execute(sql.raw(`drop index "${indexname}"`));

  const nouns = sql.raw(`array[${TITLE_NOUNS.map((noun) => `'${noun}'`).join(',')}]`);
  const title = (g: ReturnType<typeof sql.raw>) => sql`
    (array['Fix','Add','Refactor','Update','Remove','Improve','Handle','Rework'])[1 + ${g} % 8] || ' ' ||
    (${nouns})[1 + (${g} / 8) % 30] || ' ' ||
    (array['in the API','for mobile','on startup','under load','in settings','for admins'])[1 + (${g} / 240) % 6] || ' #' || ${g}`;
  const g = sql.raw('g');
  // Spread over a year, to the millisecond, by a hash of the row number.
  const updatedAt = sql`timestamptz '2025-06-01' + (abs(hashint4(g)::bigint) % 31536000000) * interval '1 millisecond'`;
  const columns = sql`user_id, pr_id, repository_id, repository_name, pr_number, title, state, html_url, diff, diff_content,
    review_status, head_branch, base_branch, base_sha, head_sha, commits_count, additions, deletions, changed_files,
    body_blob, created_at, updated_at`;
  const common = sql`
    (g % ${REPOSITORY_COUNT})::text, 'acme/service-' || (g % ${REPOSITORY_COUNT}), g, ${title(g)}, 'open',
    'https://github.com/acme/service-' || (g % ${REPOSITORY_COUNT}) || '/pull/' || g, (g % 500)::text`;
  const status = sql`case when g % 20 = 0 then 'failed' when g % 20 < 4 then 'pending' else 'completed' end`;
  const shas = sql`'feature-' || g, 'main', md5('b' || g), md5('h' || g), 1 + g % 7, g % 400, g % 150, 1 + g % 30`;

  await db.execute(sql`
    insert into pull_requests (${columns})
    select ${userId}, 3000000000 + g, ${common}, repeat('+ a changed line of code' || E'\\n', 340), ${status}, ${shas},
      jsonb_build_object('action', 'synchronize', 'number', g, 'pull_request', jsonb_build_object(
        'body', repeat('Describes the change, why it is needed and how it was tested. ', 300),
        'title', ${title(g)},
        'zz', (select string_agg(md5(g::text || ':' || i), '') from generate_series(1, 160) i))),
      ${updatedAt} - interval '2 days', ${updatedAt}
    from generate_series(1, ${seed.userRows}::int) g`);

  const otherRows = Math.max(0, seed.tableRows - seed.userRows);
  if (otherRows > 0) {
    await db.execute(sql`
      insert into users (name, email, login_method)
      select 'Bench ' || i, 'bench-other-' || i || '@example.com', 'email' from generate_series(1, ${OTHER_USERS}::int) i`);
    await db.execute(sql`
      with others as (select id, (row_number() over (order by id)) - 1 as n from users where email like 'bench-other-%')
      insert into pull_requests (${columns})
      select others.id, 4000000000 + g, ${common}, null, ${status}, ${shas},
        jsonb_build_object('action', 'opened', 'number', g, 'pull_request', jsonb_build_object('body', repeat('x', 1000))),
        ${updatedAt} - interval '2 days', ${updatedAt}
      from generate_series(1, ${otherRows}::int) g join others on others.n = g % ${OTHER_USERS}`);
  }

  for (const { indexdef } of indexes) await db.execute(sql.raw(indexdef));

  await db.execute(sql`
    insert into reviews (id, pr_id, user_id, state, status, trigged_by, mode, review_summary, review_raw_json, started_at, completed_at)
    select id, pr_id, user_id, 'PROCESSING_COMPLETED', review_status, 'webhook', 'focused', 'Two findings in the changed code.',
      jsonb_build_object('summary', 'Two findings.', 'confidence', jsonb_build_object('overall', 0.8),
        'comments', (select jsonb_agg(jsonb_build_object('file', 'src/app.ts', 'line', i, 'severity', 'MAJOR', 'title', 'A finding',
          'failureScenario', repeat('What goes wrong and when. ', 20), 'fix', repeat('How to fix it. ', 20))) from generate_series(1, 5) i)),
      updated_at - interval '1 minute', updated_at
    from pull_requests where user_id = ${userId}`);
  await db.execute(sql`
    insert into ai_conversations (user_id, title, created_at, updated_at)
    select ${userId}, 'Thread about the ' || (${nouns})[1 + g % 30] || ' ' || g,
      ${updatedAt} - interval '1 day', ${updatedAt}
    from generate_series(1, ${seed.threads}::int) g`);
  for (const table of ['pull_requests', 'reviews', 'ai_conversations', 'users']) await db.execute(sql.raw(`vacuum analyze ${table}`));
}

/**
 * `rows` pull requests spread over organizations and users (decisions.md §15): the lists' own seed
 * for the bench user, then its rows handed out, each to one of 200 users (the bench user and 199
 * members, in turn); every fourth stays personal, the rest go to the 20 organizations. The bench
 * user is a member of organizations 0 and 7, every other user of two as well.
 *
 * Where the schema has no organizations (a revision before them, for `bench:compare`), the same
 * rows go to the same users, all personal: a plain SQL probe decides, and says which it did.
 */
export async function seedOrganizationLists(db: Executor, userId: string, rows: number): Promise<{ organizations: boolean }> {
  const organizations = await hasOrganizations(db);
  await seedLists(db, userId, { userRows: rows, tableRows: rows, threads: 1 });
  await db.execute(sql`
    insert into users (name, email, login_method)
    select 'Member ' || i, 'bench-member-' || i || '@example.com', 'email' from generate_series(1, ${ORGANIZATION_USERS - 1}::int) i`);
  const people = sql`people as (select id, (row_number() over (order by id = ${userId} desc, email)) - 1 as n from users where id = ${userId} or email like 'bench-member-%')`;
  const numberedPrs = sql`numbered_prs as (select id, row_number() over (order by id) as g from pull_requests)`;
  const owner = sql`user_id = (select id from people where n = numbered_prs.g % ${ORGANIZATION_USERS})`;
  if (!organizations) {
    await db.execute(sql`with ${people}, ${numberedPrs} update pull_requests set ${owner} from numbered_prs where numbered_prs.id = pull_requests.id`);
    await db.execute(sql`vacuum analyze pull_requests`);
    return { organizations };
  }

  await db.execute(sql`
    insert into organizations (name, slug)
    select 'Team ' || i, 'team-' || i from generate_series(0, ${ORGANIZATIONS - 1}::int) i`);
  const teams = sql`teams as (select id, (row_number() over (order by slug)) - 1 as n from organizations)`;
  await db.execute(sql`
    with ${people}, ${teams}
    insert into organization_members (org_id, user_id, role)
    select teams.id, people.id, case when people.n = 0 then 'owner'::org_role else 'member'::org_role end
    from people join teams on teams.n in (people.n % ${ORGANIZATIONS}, (people.n + 7) % ${ORGANIZATIONS})`);
  await db.execute(sql`
    with ${people}, ${teams}, ${numberedPrs}
    update pull_requests set
      ${owner},
      org_id = case when numbered_prs.g % 4 = 0 then null else (select id from teams where n = (numbered_prs.g / 4) % ${ORGANIZATIONS}) end
    from numbered_prs where numbered_prs.id = pull_requests.id`);
  await db.execute(sql`vacuum analyze pull_requests`);
  await db.execute(sql`vacuum analyze organization_members`);
  return { organizations };
}

/** Whether the schema has organizations: their tables and the pull requests' `org_id`. */
async function hasOrganizations(db: Executor): Promise<boolean> {
  const [row] = await queryRows<{ present: boolean }>(
    db,
    sql`select
      (select count(*) from information_schema.tables where table_schema = current_schema() and table_name in ('organizations', 'organization_members')) = 2
      and exists (select 1 from information_schema.columns where table_schema = current_schema() and table_name = 'pull_requests' and column_name = 'org_id') as present`,
  );
  return row!.present;
}

/** The user's `updatedAt` in the middle of their list: a cursor of a page deep in the list. */
export async function middleCursor(db: Executor, userId: string, userRows: number): Promise<string> {
  const [row] = await queryRows<{ at: string }>(
    db,
    sql`select to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from pull_requests
        where user_id = ${userId} order by updated_at desc offset ${Math.floor(userRows / 2)} limit 1`,
  );
  return row!.at;
}
