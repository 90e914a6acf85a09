/** One line of `POST /conversation/chat` (the API document's chat stream events). */
export type ChatEvent =
  | { type: 'conversation'; conversationId: string }
  | { type: 'content'; content: string }
  | { type: 'tool-call'; toolName: string; toolCallId: string; input: unknown }
  | { type: 'tool-result'; toolName: string; toolCallId: string; output: unknown }
  | { type: 'error'; error: string };

/** Reads one NDJSON line into an event; a line that is no event of the stream reads as undefined. */
export function parseChatLine(line: string): ChatEvent | undefined {
  const text = line.trim();
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { type: 'error', error: 'The answer could not be read (a line of the stream was not JSON)' };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record.type === undefined && typeof record.conversationId === 'string') return { type: 'conversation', conversationId: record.conversationId };
  switch (record.type) {
    case 'content':
      return typeof record.content === 'string' ? { type: 'content', content: record.content } : undefined;
    case 'tool-call':
    case 'tool-result':
      return typeof record.toolName === 'string'
        ? ({ ...record, toolCallId: typeof record.toolCallId === 'string' ? record.toolCallId : '' } as ChatEvent)
        : undefined;
    case 'error':
      return { type: 'error', error: typeof record.error === 'string' ? record.error : 'The answer stopped with an error' };
    default:
      return undefined;
  }
}

/**
 * Splits a byte stream into NDJSON events as they arrive: a line may span chunks, and a chunk may
 * end inside a multi-byte character (the decoder keeps it until the rest comes).
 */
export async function* readChatEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<ChatEvent> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const event = parseChatLine(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        if (event) yield event;
        newline = buffered.indexOf('\n');
      }
      if (done) break;
    }
    const last = parseChatLine(buffered);
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}

/** The answer as the page shows it: text, the tools it used (by name) and an error, if any. */
export interface ChatAnswer {
  text: string;
  tools: string[];
  error?: string;
  conversationId?: string;
}

export function applyChatEvent(answer: ChatAnswer, event: ChatEvent): ChatAnswer {
  switch (event.type) {
    case 'conversation':
      return { ...answer, conversationId: event.conversationId };
    case 'content':
      return { ...answer, text: answer.text + event.content };
    case 'tool-call':
      return answer.tools.includes(event.toolName) ? answer : { ...answer, tools: [...answer.tools, event.toolName] };
    case 'tool-result':
      return answer;
    case 'error':
      return { ...answer, error: event.error };
  }
}
