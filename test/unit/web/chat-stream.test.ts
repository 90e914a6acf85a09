import { describe, expect, it } from 'vitest';
import { applyChatEvent, parseChatLine, readChatEvents, type ChatAnswer, type ChatEvent } from '../../../web/src/lib/ndjson.js';

function streamOf(...chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of readChatEvents(stream)) events.push(event);
  return events;
}

describe('the chat stream (NDJSON)', () => {
  it('reads each event of the API document', () => {
    expect(parseChatLine('{"conversationId":"c1"}')).toEqual({ type: 'conversation', conversationId: 'c1' });
    expect(parseChatLine('{"type":"content","content":"Hi"}')).toEqual({ type: 'content', content: 'Hi' });
    expect(parseChatLine('{"type":"tool-call","toolName":"getDiff","toolCallId":"t1","input":{"prId":1}}')).toEqual({
      type: 'tool-call',
      toolName: 'getDiff',
      toolCallId: 't1',
      input: { prId: 1 },
    });
    expect(parseChatLine('{"type":"error","error":"The model failed"}')).toEqual({ type: 'error', error: 'The model failed' });
  });

  it('skips blank lines and events it does not know, and reports a line that is not JSON as an error', () => {
    expect(parseChatLine('   ')).toBeUndefined();
    expect(parseChatLine('{"type":"reasoning","text":"…"}')).toBeUndefined();
    expect(parseChatLine('42')).toBeUndefined();
    expect(parseChatLine('{"type":"content"')).toMatchObject({ type: 'error' });
  });

  it('joins lines split across chunks, and characters split across bytes', async () => {
    const bytes = new TextEncoder().encode('{"type":"content","content":"naïve 🙂"}\n');
    const splitAt = bytes.indexOf(0xf0) + 2;
    const events = await collect(streamOf('{"conversationId":"c', '1"}\n{"type":"con', 'tent","content":"a"}\n', bytes.slice(0, splitAt), bytes.slice(splitAt)));
    expect(events).toEqual([
      { type: 'conversation', conversationId: 'c1' },
      { type: 'content', content: 'a' },
      { type: 'content', content: 'naïve 🙂' },
    ]);
  });

  it('reads a last line without its newline', async () => {
    expect(await collect(streamOf('{"type":"content","content":"end"}'))).toEqual([{ type: 'content', content: 'end' }]);
  });

  it('builds the answer as it arrives: text appended, tools by name once, the error kept', () => {
    const events: ChatEvent[] = [
      { type: 'conversation', conversationId: 'c1' },
      { type: 'tool-call', toolName: 'getDiff', toolCallId: '1', input: {} },
      { type: 'tool-result', toolName: 'getDiff', toolCallId: '1', output: 'diff' },
      { type: 'tool-call', toolName: 'getDiff', toolCallId: '2', input: {} },
      { type: 'content', content: 'The ' },
      { type: 'content', content: 'answer' },
      { type: 'error', error: 'stopped' },
    ];
    const answer = events.reduce<ChatAnswer>(applyChatEvent, { text: '', tools: [] });
    expect(answer).toEqual({ conversationId: 'c1', tools: ['getDiff'], text: 'The answer', error: 'stopped' });
  });
});
