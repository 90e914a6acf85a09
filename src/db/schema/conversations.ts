import { bigint, boolean, index, integer, pgEnum, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, updatedAt } from './columns.js';
import { pullRequests } from './pull-requests.js';
import { users } from './users.js';

export const aiConversations = pgTable(
  'ai_conversations',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: varchar('title', { length: 256 }).notNull(),
    connectedPrTitle: text('connected_pr_title'),
    connectedPrId: uuid('connected_pr_id').references(() => pullRequests.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('ai_conversations_user_updated_idx').on(table.userId, table.updatedAt.desc().nullsFirst(), table.id.desc().nullsFirst())],
);

/** Spelled as the API document spells them. */
export const thumbsFeedbackEnum = pgEnum('thumbs_feedback', ['postive', 'negitive']);

export const aiMessages = pgTable(
  'ai_messages',
  {
    id: primaryUuid(),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => aiConversations.id, { onDelete: 'cascade' }),
    messageCount: bigint('message_count', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    inputMessage: text('input_message').notNull(),
    outputMessage: text('output_message').notNull().default(''),
    usedToolCalls: text('used_tool_calls').array().notNull().default([]),
    llmModel: varchar('llm_model', { length: 256 }),
    regenerated: boolean('regenerated').notNull().default(false),
    thumbsFeedback: thumbsFeedbackEnum('thumbs_feedback'),
    inputTokens: integer('input_tokens').notNull().default(0),
    uncachedInputTokens: integer('uncached_input_tokens').notNull().default(0),
    cachedInputReadTokens: integer('cached_input_read_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    reasoningOutputTokens: integer('reasoning_output_tokens').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('ai_messages_conversation_created_idx').on(table.conversationId, table.createdAt)],
);

export type AiConversation = typeof aiConversations.$inferSelect;
export type AiMessage = typeof aiMessages.$inferSelect;
