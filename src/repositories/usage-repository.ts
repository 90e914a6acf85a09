import { and, gte, sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { ownedBy, ownerValues } from '../db/owner-condition.js';
import { usage, usageDaily, usageRecords, type Usage, type UsageKind } from '../db/schema/index.js';
import type { Owner } from '../domain/owners.js';

/** One generation: its record (decisions.md §14) and what it adds to its owner's counters. */
export interface UsageEntry {
  owner: Owner;
  /** In an organization, the member it is attributed to (null: none). */
  memberId: string | null;
  kind: UsageKind;
  modelId: string;
  source: string;
  /** Platform generations are charged to the allowance; BYOK ones only carry their cost. */
  charged: boolean;
  pullRequestId: string | null;
  repositoryName: string | null;
  durationMs: number;
  inputCost: number;
  outputCost: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
}

export class UsageRepository {
  /** Every generation's statements, built once and named (see ReviewRepository's hot statements). */
  private readonly charge;
  private readonly spent;

  constructor(private readonly db: Database) {
    this.charge = { user: chargeStatement(db, 'user'), org: chargeStatement(db, 'org') };
    const spent = (kind: Owner['kind']) =>
      db
        .select({ total: sql<string>`${usage.inputCost} + ${usage.outputCost}` })
        .from(usage)
        .where(ownedBy(usage, { kind, id: sql.placeholder('id') as unknown as string }))
        .limit(1)
        .prepare(`usage_spent_${kind}`);
    this.spent = { user: spent('user'), org: spent('org') };
  }

  /** The usage row is created on first read. */
  async getOrCreate(owner: Owner): Promise<Usage> {
    await this.db.insert(usage).values(ownerValues(owner)).onConflictDoNothing();
    const [row] = await this.db.select().from(usage).where(ownedBy(usage, owner)).limit(1);
    return row!;
  }

  /**
   * Records a generation and charges it in one statement (data-modifying CTEs), atomic without a
   * transaction: the record, its day's rollup and the counters commit together, so the history and
   * the allowance never disagree, in one round trip. Every write adds to its row
   * (`x = x + excluded.x`): concurrent generations each add their own share, none
   * read-modify-writes, so no increment is lost.
   */
  async add(entry: UsageEntry): Promise<void> {
    const { owner, ...rest } = entry;
    await this.charge[owner.kind].execute({
      ...rest,
      ...ownerValues(owner),
      costUsd: entry.inputCost + entry.outputCost,
      chargedInputCost: entry.charged ? entry.inputCost : 0,
      chargedOutputCost: entry.charged ? entry.outputCost : 0,
    });
  }

  /** What the owner's platform generations have cost so far: the allowance's spent part. */
  async totalCost(owner: Owner): Promise<number> {
    const [row] = await this.spent[owner.kind].execute({ id: owner.id });
    return row === undefined ? 0 : Number(row.total);
  }

  /**
   * What an organization's calls have cost since `since` (the start of the UTC month), platform and
   * its own keys alike: the spend its monthly limit caps. Read from the daily rollup.
   */
  async orgSpendSince(orgId: string, since: string): Promise<number> {
    const [row] = await this.db
      .select({ total: sql<string | null>`sum(${usageDaily.costUsd})` })
      .from(usageDaily)
      .where(and(ownedBy(usageDaily, { kind: 'org', id: orgId }), gte(usageDaily.day, since)));
    return Number(row?.total ?? 0);
  }
}

/** `add`'s statement for one kind of owner: the record, its day's rollup and the counters, every value a placeholder. */
function chargeStatement(db: Database, kind: Owner['kind']) {
  const value = (name: Exclude<keyof UsageEntry, 'owner'> | 'userId' | 'orgId' | 'costUsd' | 'chargedInputCost' | 'chargedOutputCost') => sql.placeholder(name);
  const record = db.$with('record').as(
    db
      .insert(usageRecords)
      .values({
        userId: value('userId'),
        orgId: value('orgId'),
        memberId: value('memberId'),
        kind: value('kind'),
        modelId: value('modelId'),
        source: value('source'),
        inputTokens: value('inputTokens'),
        outputTokens: value('outputTokens'),
        costUsd: value('costUsd'),
        pullRequestId: value('pullRequestId'),
        repositoryName: value('repositoryName'),
        durationMs: value('durationMs'),
      })
      .returning({
        at: usageRecords.at,
        userId: usageRecords.userId,
        orgId: usageRecords.orgId,
        memberId: usageRecords.memberId,
        kind: usageRecords.kind,
        modelId: usageRecords.modelId,
        source: usageRecords.source,
        repositoryName: usageRecords.repositoryName,
        inputTokens: usageRecords.inputTokens,
        outputTokens: usageRecords.outputTokens,
        costUsd: usageRecords.costUsd,
      }),
  );
  // The record's day in UTC, as the history's ranges count days; columns in the table's order.
  const daily = db.$with('daily').as(
    db
      .insert(usageDaily)
      .select((qb) =>
        qb
          .select({
            userId: record.userId,
            orgId: record.orgId,
            memberId: record.memberId,
            day: sql<string>`(${record.at} at time zone 'UTC')::date`.as('day'),
            kind: record.kind,
            modelId: record.modelId,
            source: record.source,
            repositoryName: record.repositoryName,
            generations: sql<number>`1`.as('generations'),
            inputTokens: record.inputTokens,
            outputTokens: record.outputTokens,
            costUsd: record.costUsd,
          })
          .from(record),
      )
      .onConflictDoUpdate({
        target: [usageDaily.userId, usageDaily.orgId, usageDaily.day, usageDaily.kind, usageDaily.modelId, usageDaily.source, usageDaily.repositoryName, usageDaily.memberId],
        set: {
          generations: sql`${usageDaily.generations} + 1`,
          inputTokens: sql`${usageDaily.inputTokens} + excluded.input_tokens`,
          outputTokens: sql`${usageDaily.outputTokens} + excluded.output_tokens`,
          costUsd: sql`${usageDaily.costUsd} + excluded.cost_usd`,
        },
      }),
  );
  return db
    .with(record, daily)
    .insert(usage)
    .values({
      userId: value('userId'),
      orgId: value('orgId'),
      inputCost: value('chargedInputCost'),
      outputCost: value('chargedOutputCost'),
      inputTokens: value('inputTokens'),
      cachedInputTokens: value('cachedInputTokens'),
      outputTokens: value('outputTokens'),
      reasoningTokens: value('reasoningTokens'),
    })
    .onConflictDoUpdate({
      target: kind === 'user' ? usage.userId : usage.orgId,
      set: {
        inputCost: sql`${usage.inputCost} + excluded.input_cost`,
        outputCost: sql`${usage.outputCost} + excluded.output_cost`,
        inputTokens: sql`${usage.inputTokens} + excluded.input_tokens`,
        cachedInputTokens: sql`${usage.cachedInputTokens} + excluded.cached_input_tokens`,
        outputTokens: sql`${usage.outputTokens} + excluded.output_tokens`,
        reasoningTokens: sql`${usage.reasoningTokens} + excluded.reasoning_tokens`,
        updatedAt: sql`now()`,
      },
    })
    .prepare(`usage_charge_${kind}`);
}
