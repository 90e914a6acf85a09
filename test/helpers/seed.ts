import { eq } from 'drizzle-orm';
import type { Database } from '../../src/db/database.js';
import {
  aiConversations,
  aiMessages,
  byokProviders,
  pullRequests,
  repositories,
  reviews,
  usage,
  workspaceSettings,
} from '../../src/db/schema/index.js';

let nextPrId = 3_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;

/** One row in every table that holds a user's data, for deletion and isolation tests. */
export async function seedUserData(db: Database, userId: string) {
  const prId = nextPrId++;
  const [pr] = await db
    .insert(pullRequests)
    .values({
      userId,
      prId,
      repositoryName: 'octo/repo',
      prNumber: 1,
      title: 'Seeded pull request',
      state: 'open',
      headBranch: 'feature',
      baseBranch: 'main',
      baseSha: 'a'.repeat(40),
      headSha: 'b'.repeat(40),
      bodyBlob: { seeded: true },
    })
    .returning();
  await db.insert(reviews).values({ id: pr!.id, prId, userId, triggedBy: 'webhook' });
  await db.insert(repositories).values({ userId, repositoryId: prId, fullName: 'octo/repo' });
  const [conversation] = await db.insert(aiConversations).values({ userId, title: 'Seeded chat', connectedPrId: pr!.id }).returning();
  await db.insert(aiMessages).values({ conversationId: conversation!.id, inputMessage: 'hi', outputMessage: 'hello' });
  // One per user: seeding a second pull request for the same user keeps the first ones.
  await db.insert(workspaceSettings).values({ userId, systemPrompt: 'Be brief' }).onConflictDoNothing();
  await db.insert(byokProviders).values({ userId, modelProviderName: 'openai', apiKey: 'sealed' }).onConflictDoNothing();
  await db.insert(usage).values({ userId, inputCost: 0.01, outputCost: 0.02 }).onConflictDoNothing();
  return { pullRequestId: pr!.id, prId, conversationId: conversation!.id };
}

/** How many rows each user-data table holds for the user. */
export async function countUserRows(db: Database, userId: string) {
  const tables = { pullRequests, reviews, repositories, aiConversations, workspaceSettings, byokProviders, usage };
  const counts: Record<string, number> = {};
  for (const [name, table] of Object.entries(tables)) {
    counts[name] = (await db.select().from(table).where(eq(table.userId, userId))).length;
  }
  return counts;
}
