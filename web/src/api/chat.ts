import { ApiError, request } from './client';
import { applyChatEvent, readChatEvents, type ChatAnswer } from '../lib/ndjson';

export interface ChatRequest {
  message: string;
  conversationId?: string;
  prId?: string;
  llmModel?: string;
  customModelData?: { providerId: string };
}

/** Sends a message and reports the answer as it streams in; resolves with the whole answer. */
export async function streamChat(body: ChatRequest, onUpdate: (answer: ChatAnswer) => void, signal?: AbortSignal): Promise<ChatAnswer> {
  const response = await request('POST', '/conversation/chat', body, { signal });
  if (!response.body) throw new ApiError(response.status, 'The answer came without a body');
  let answer: ChatAnswer = { text: '', tools: [] };
  for await (const event of readChatEvents(response.body)) {
    answer = applyChatEvent(answer, event);
    onUpdate(answer);
  }
  return answer;
}
