import { z } from 'zod';
import { cursorSchema, isoTimestamp } from '../common-schemas.js';
import { providerNameSchema } from '../byok/byok-schemas.js';

export const chatBody = z.object({
  message: z.string().trim().min(1, 'must not be empty').max(32_000),
  prId: z.union([z.string().trim().min(1).max(64), z.number().int().positive().transform(String)]).optional(),
  conversationId: z.uuid().optional(),
  llmModel: z.string().trim().min(1).max(256).optional(),
  // Which of the user's stored providers serves the model: keys never travel in a chat request.
  customModelData: z.union([z.object({ providerId: z.uuid() }).strict(), z.object({ modelProviderName: providerNameSchema }).strict()]).optional(),
});

export const historyParams = z.object({ id: z.uuid() });
export const historyBody = z
  .object({ updatedAt: cursorSchema.optional() })
  .nullish()
  .transform((body) => body ?? {});

export const historyItem = z.object({
  id: z.uuid(),
  inputMessage: z.string(),
  outputMessage: z.string(),
  usedToolCalls: z.array(z.string()),
  thumbsFeedback: z.enum(['postive', 'negitive']).nullable(),
  llmModel: z.string().nullable(),
  inputTokens: z.number().int(),
  outputToken: z.number().int(),
  createdAt: isoTimestamp,
});

export const listQuery = z.object({ lastUpdatedAt: cursorSchema.optional() });
export const threadItem = z.object({ id: z.uuid(), title: z.string(), updatedAt: isoTimestamp });

export const feedbackBody = z
  .object({
    messageId: z.uuid(),
    userFeedback: z.enum(['postive', 'negitive']).nullable().optional(),
    regeneratedMsg: z.boolean().optional(),
  })
  .refine((body) => body.userFeedback !== undefined || body.regeneratedMsg !== undefined, { message: 'send userFeedback or regeneratedMsg' });
