import { and, desc, eq, lt, lte, sql, type Placeholder } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../db/database.js';
import { isoTime, jsonPage, JsonPageStatements } from '../db/json-page.js';
import { aiConversations, aiMessages, type AiConversation, type AiMessage } from '../db/schema/index.js';

export type NewMessage = Omit<typeof aiMessages.$inferInsert, 'id' | 'messageCount' | 'createdAt' | 'updatedAt'>;

export const THREAD_PAGE = 20;

const threadItem = { id: aiConversations.id, title: aiConversations.title, updatedAt: isoTime(aiConversations.updatedAt) };
export const HISTORY_PAGE = 100;

/** Chat threads and their messages; every read is scoped to the owner, so another user's id finds nothing. */
export class ConversationRepository {
  private readonly db: Database;
  private readonly pages: JsonPageStatements;

  constructor(database: DatabaseHandle) {
    this.db = database.db;
    this.pages = new JsonPageStatements(database);
  }

  async create(values: { id?: string; userId: string; title: string; connectedPrId: string | null; connectedPrTitle: string | null }): Promise<AiConversation> {
    const [row] = await this.db.insert(aiConversations).values(values).returning();
    return row!;
  }

  async findOwned(userId: string, id: string): Promise<AiConversation | undefined> {
    const [row] = await this.db
      .select()
      .from(aiConversations)
      .where(and(eq(aiConversations.userId, userId), eq(aiConversations.id, id)))
      .limit(1);
    return row;
  }

  async setTitle(id: string, title: string): Promise<void> {
    await this.db.update(aiConversations).set({ title }).where(eq(aiConversations.id, id));
  }

  /** Threads updated strictly before `before`, newest first, as the API's JSON (`threadItem`). */
  threadsPage(userId: string, before: Date | undefined): Promise<string> {
    return this.pages.page(
      before === undefined ? 'ai_conversations_page' : 'ai_conversations_page_before',
      () => this.threadsPageQuery(sql.placeholder('userId'), before && sql.placeholder('before')),
      { userId, before: before?.toISOString() },
    );
  }

  /** The query behind `threadsPage`; with values bound, for EXPLAIN. */
  threadsPageQuery(userId: string | Placeholder, before: Date | Placeholder | undefined) {
    return jsonPage(this.db, {
      table: aiConversations,
      where: and(eq(aiConversations.userId, userId), before === undefined ? undefined : lt(aiConversations.updatedAt, before)),
      orderBy: [aiConversations.updatedAt, aiConversations.id],
      direction: 'desc',
      limit: THREAD_PAGE,
      item: threadItem,
    });
  }

  /** Saves an exchange and moves its thread to the top of the list, in one transaction. */
  async addMessage(message: NewMessage): Promise<AiMessage> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.insert(aiMessages).values(message).returning();
      await tx.update(aiConversations).set({ updatedAt: new Date() }).where(eq(aiConversations.id, message.conversationId));
      return row!;
    });
  }

  /** The newest `limit` messages created at or before `upTo`, oldest first, of the owner's thread. */
  async messages(userId: string, conversationId: string, upTo: Date | undefined, limit = HISTORY_PAGE): Promise<AiMessage[]> {
    const rows = await this.db
      .select({ message: aiMessages })
      .from(aiMessages)
      .innerJoin(aiConversations, eq(aiConversations.id, aiMessages.conversationId))
      .where(and(eq(aiConversations.userId, userId), eq(aiMessages.conversationId, conversationId), upTo === undefined ? undefined : lte(aiMessages.createdAt, upTo)))
      .orderBy(desc(aiMessages.createdAt), desc(aiMessages.messageCount))
      .limit(limit);
    return rows.map((row) => row.message).reverse();
  }

  /** Feedback on one of the owner's messages; false when there is no such message of theirs. */
  async setFeedback(userId: string, messageId: string, changes: Partial<Pick<AiMessage, 'thumbsFeedback' | 'regenerated'>>): Promise<boolean> {
    const rows = await this.db
      .update(aiMessages)
      .set(changes)
      .where(
        and(
          eq(aiMessages.id, messageId),
          sql`${aiMessages.conversationId} in (select ${aiConversations.id} from ${aiConversations} where ${aiConversations.userId} = ${userId})`,
        ),
      )
      .returning({ id: aiMessages.id });
    return rows.length > 0;
  }
}
