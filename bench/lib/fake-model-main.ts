import { FakeOpenAIChat } from '../../test/fakes/fake-openai-chat.js';

/**
 * The chat benchmark's model, in its own process so that its timing is not at the mercy of the load
 * generator's event loop. It prints its URL, then one line per answer: `{marker, firstTokenMs}`.
 */
const firstTokenDelayMs = Number(process.argv[2] ?? 50);
const model = await new FakeOpenAIChat().start();
model.reply((request) => {
  const text = JSON.stringify(request.body.messages);
  if (text.includes('Write a short title')) return { text: 'A title' };
  const marker = /\[bench-(\d+-\d+)\]/.exec(text)?.[1];
  if (marker) {
    // The fake records the first token's time but has no hook for it: look until it is there, or
    // until the answer ended (finished or aborted) without one. The poll's timing is not measured:
    // firstTokenMs is the fake's own reading.
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearInterval(check);
      if (request.firstTokenMs !== undefined) process.stdout.write(`${JSON.stringify({ marker, firstTokenMs: request.firstTokenMs })}\n`);
    };
    const check = setInterval(() => {
      if (request.firstTokenMs !== undefined || request.durationMs !== undefined) settle();
    }, 5);
    void request.aborted.then(settle);
  }
  // Streamed over about a second, as a model answers: 50 chats at once are then 50 in flight, not a flood.
  return { text: 'The change is safe to merge: the migration adds a nullable column, which takes only a short lock.', chunks: 20, firstTokenDelayMs, chunkDelayMs: 50 };
});
process.stdout.write(`${model.url}\n`);
process.on('SIGTERM', () => void model.stop().then(() => process.exit(0)));
