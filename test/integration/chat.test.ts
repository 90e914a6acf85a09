import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiConversations, aiMessages, usage } from '../../src/db/schema/index.js';
import { threadItem } from '../../src/routes/conversation/conversation-schemas.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { ownGateway } from '../helpers/byok.js';
import { ndjsonLines, readAll } from '../helpers/ndjson.js';
import { seedUserData } from '../helpers/seed.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { FakeOpenAIChat, type ChatRequest, type ScriptedReply } from '../fakes/fake-openai-chat.js';

const isTitleRequest = (request: ChatRequest) => JSON.stringify(request.body.messages).includes('Write a short title');
const hasToolResults = (request: ChatRequest) => request.body.messages.some((message) => message.role === 'tool');

describe('POST /conversation/chat', () => {
  let model: FakeOpenAIChat;
  let t: TestApp;
  let url: string;
  /** What the chat model answers (titles are answered apart). */
  let answer: (request: ChatRequest) => ScriptedReply = () => ({ text: 'The change looks safe.', chunks: 3 });
  /** What the model answers to a title request; back to a good title for every test. */
  let title: () => ScriptedReply;
  beforeEach(() => {
    title = () => ({ text: '"Loop bounds in average()"' });
  });

  beforeAll(async () => {
    model = await new FakeOpenAIChat().start();
    model.reply((request) => (isTitleRequest(request) ? title() : answer(request)));
    t = await createTestApp({
      role: 'api',
      env: {
        PLATFORM_AI_BASE_URL: model.url,
        PLATFORM_MODELS: JSON.stringify([{ id: 'chat-model', name: 'Chat', contextLength: 64_000, inputPrice: 1, outputPrice: 2 }]),
      },
    });
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
    await model.stop();
  });

  const chat = (account: Account, body: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(`${url}/conversation/chat`, { method: 'POST', headers: { cookie: account.cookie, 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
  const history = async (account: Account, conversationId: string, body: object = {}) =>
    (await t.app.inject({ method: 'POST', url: `/conversation/chat/${conversationId}`, headers: { cookie: account.cookie }, payload: body })).json<Array<Record<string, unknown>>>();
  /** The newest request for an answer (not for a title). */
  const lastAnswerRequest = () => model.completions().filter((candidate) => !isTitleRequest(candidate)).at(-1)!;

  it('streams NDJSON, a line per event as it happens: the thread id first, then content before the model has finished', async () => {
    const account = await createAccount(t.app, t.outbox);
    answer = () => ({ text: 'First part. Second part. Third part. Done.', chunks: 4, chunkDelayMs: 150 });
    const response = await chat(account, { message: 'Is this migration safe to run on a large table?' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(response.headers.get('transfer-encoding')).toBe('chunked');

    const lines: Array<Record<string, unknown>> = [];
    let modelStillAnswering: boolean | undefined;
    for await (const line of ndjsonLines(response)) {
      if (line.type === 'content' && modelStillAnswering === undefined) modelStillAnswering = lastAnswerRequest().durationMs === undefined;
      lines.push(line);
    }
    expect(modelStillAnswering).toBe(true);
    expect(Object.keys(lines[0]!)).toEqual(['conversationId']);
    const text = lines.filter((line) => line.type === 'content').map((line) => line.content as string).join('');
    expect(text).toBe('First part. Second part. Third part. Done.');
    expect(lines.filter((line) => line.type === 'content').length).toBeGreaterThanOrEqual(4);
  });

  it('saves the exchange with its tokens, names the thread from the model, and lists it', async () => {
    const account = await createAccount(t.app, t.outbox);
    answer = () => ({ text: 'Yes, with a lock timeout.', usage: { promptTokens: 321, completionTokens: 45, cachedTokens: 100, reasoningTokens: 7 } });
    const lines = await readAll(await chat(account, { message: 'Is this migration safe to run on a large table?' }));
    const conversationId = lines[0]!.conversationId as string;

    const [message] = await history(account, conversationId);
    expect(message).toEqual({
      id: expect.any(String),
      inputMessage: 'Is this migration safe to run on a large table?',
      outputMessage: 'Yes, with a lock timeout.',
      usedToolCalls: [],
      thumbsFeedback: null,
      llmModel: 'chat-model',
      inputTokens: 321,
      outputToken: 45,
      createdAt: expect.any(String),
    });
    const [row] = await t.app.db.select().from(aiMessages).where(eq(aiMessages.id, message!.id as string));
    expect(row).toMatchObject({ uncachedInputTokens: 221, cachedInputReadTokens: 100, reasoningOutputTokens: 7 });

    const threads = (await t.app.inject({ method: 'GET', url: '/conversation', headers: { cookie: account.cookie } })).json<Array<Record<string, unknown>>>();
    expect(threads).toEqual([{ id: conversationId, title: 'Loop bounds in average()', updatedAt: expect.any(String) }]);
    // Accounted through the router: the answer and the title, at the platform's prices.
    const [counters] = await t.app.db.select().from(usage).where(eq(usage.userId, account.id));
    expect(counters!.inputTokens).toBeGreaterThanOrEqual(321);
    expect(counters!.inputCost + counters!.outputCost).toBeGreaterThan(0);
  });

  it('keeps the first words as the title when the model gives none, and continues a thread with its history', async () => {
    const account = await createAccount(t.app, t.outbox);
    title = () => ({ status: 500 });
    answer = () => ({ text: 'First answer.' });
    const titleRequests = model.completions().filter(isTitleRequest).length;
    const first = await readAll(await chat(account, { message: 'please explain what this refactoring changes in the parser module' }));
    expect(first.filter((line) => line.type === 'content').map((line) => line.content).join('')).toBe('First answer.');
    // The model was asked for a title, and failed.
    expect(model.completions().filter(isTitleRequest)).toHaveLength(titleRequests + 1);
    const conversationId = first[0]!.conversationId as string;
    const threads = (await t.app.inject({ method: 'GET', url: '/conversation', headers: { cookie: account.cookie } })).json<Array<{ title: string }>>();
    expect(threads).toEqual([expect.objectContaining({ id: conversationId, title: 'please explain what this refactoring changes in the' })]);

    answer = () => ({ text: 'Second answer.' });
    const second = await readAll(await chat(account, { message: 'And the tests?', conversationId }));
    expect(second[0]).not.toHaveProperty('conversationId');
    const texts = lastAnswerRequest().body.messages.map((message) => message.content);
    expect(texts).toContain('And the tests?');
    expect(JSON.stringify(texts)).toContain('please explain what this refactoring changes');
    expect((await history(account, conversationId)).map((message) => message.inputMessage)).toHaveLength(2);
  });

  it('runs tools: a tool call, its result back to the model, then the answer; tool names are saved', async () => {
    const account = await createAccount(t.app, t.outbox);
    const seeded = await seedUserData(t.app.db, account.id);
    // Another user's pull request, newer: never in this user's list.
    await seedUserData(t.app.db, (await createAccount(t.app, t.outbox)).id);
    answer = (request) =>
      hasToolResults(request)
        ? { text: 'You have one pull request: Seeded pull request.' }
        : { toolCalls: [{ id: 'call_list', name: 'getPRList', arguments: {} }] };
    const lines = await readAll(await chat(account, { message: 'What pull requests do I have?' }));
    const types = lines.slice(1).map((line) => line.type);
    expect(types.slice(0, 2)).toEqual(['tool-call', 'tool-result']);
    expect(types.slice(2).every((type) => type === 'content')).toBe(true);
    expect(lines[1]).toEqual({ type: 'tool-call', toolName: 'getPRList', toolCallId: 'call_list', input: {} });
    expect(lines[2]).toMatchObject({ type: 'tool-result', toolName: 'getPRList', toolCallId: 'call_list', output: [expect.objectContaining({ prId: seeded.prId, title: 'Seeded pull request' })] });
    // The tool's items, rendered by the database: these keys only, the time as the API writes it.
    const { output } = lines[2] as { output: Record<string, unknown>[] };
    expect(output).toHaveLength(1);
    const [item] = output;
    expect(Object.keys(item!).sort()).toEqual(['htmlUrl', 'number', 'prId', 'repository', 'reviewStatus', 'state', 'title', 'updatedAt']);
    expect(item!.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const toolMessage = lastAnswerRequest().body.messages.find((message) => message.role === 'tool')!;
    expect(toolMessage.tool_call_id).toBe('call_list');
    expect(JSON.stringify(toolMessage.content)).toContain('Seeded pull request');
    const [message] = await history(account, lines[0]!.conversationId as string);
    expect(message!.usedToolCalls).toEqual(['getPRList']);
  });

  it('with prId, the pull request’s diff and details are in the model’s context', async () => {
    const account = await createAccount(t.app, t.outbox);
    const seeded = await seedUserData(t.app.db, account.id);
    await t.app.repos.pullRequests.cacheDiff(seeded.pullRequestId, 'diff --git a/x.ts b/x.ts\n+const marker = "DIFF-MARKER";\n');
    answer = () => ({ text: 'It adds a marker.' });
    const response = await chat(account, { message: 'What does it do?', prId: seeded.prId });
    expect(response.status).toBe(200);
    // The answer streams after the status: the model has been asked once the stream ends.
    await readAll(response);
    const system = lastAnswerRequest().body.messages.find((message) => message.role === 'system')!.content as string;
    expect(system).toContain('DIFF-MARKER');
    expect(system).toContain('octo/repo#1: Seeded pull request');
    expect(system).toContain('Branches: feature into main');
  });

  it('getDiff answers only for the caller’s pull requests', async () => {
    const owner = await createAccount(t.app, t.outbox);
    const intruder = await createAccount(t.app, t.outbox);
    const seeded = await seedUserData(t.app.db, owner.id);
    await t.app.repos.pullRequests.cacheDiff(seeded.pullRequestId, 'diff --git a/secret.ts b/secret.ts\n+const OWNER_ONLY = 1;\n');
    answer = (request) => (hasToolResults(request) ? { text: 'Done.' } : { toolCalls: [{ id: 'call_diff', name: 'getDiff', arguments: { prId: seeded.prId } }] });

    const stolen = await readAll(await chat(intruder, { message: 'Show me that diff' }));
    expect(stolen.find((line) => line.type === 'tool-result')).toMatchObject({ output: { error: 'No pull request with that id among yours' } });
    expect(JSON.stringify(stolen)).not.toContain('OWNER_ONLY');

    const own = await readAll(await chat(owner, { message: 'Show me that diff' }));
    expect(own.find((line) => line.type === 'tool-result')).toMatchObject({ output: { prId: seeded.prId, diff: expect.stringContaining('OWNER_ONLY'), truncated: false } });
  });

  it('an error after the stream began becomes an error line, and the partial answer is kept', async () => {
    const account = await createAccount(t.app, t.outbox);
    answer = () => ({ text: 'Partial answer that breaks off here', failAfterChunks: 2 });
    const lines = await readAll(await chat(account, { message: 'Explain the change' }));
    const last = lines.at(-1)!;
    expect(last).toEqual({ type: 'error', error: expect.any(String) });
    const partial = lines.filter((line) => line.type === 'content').map((line) => line.content as string).join('');
    expect(partial.length).toBeGreaterThan(0);
    const [message] = await history(account, lines[0]!.conversationId as string);
    expect(message!.outputMessage).toBe(partial);
  });

  it('a client that disconnects aborts the model request, and what was said is kept', async () => {
    const account = await createAccount(t.app, t.outbox);
    answer = () => ({ text: 'One. Two. Three. Four. Five. Six. Seven. Eight.', chunks: 8, chunkDelayMs: 200 });
    const controller = new AbortController();
    const response = await chat(account, { message: 'Take your time' }, controller.signal);
    let conversationId = '';
    for await (const line of ndjsonLines(response)) {
      if (line.conversationId) conversationId = line.conversationId as string;
      if (line.type === 'content') break;
    }
    controller.abort();
    let modelRequest = 'still running';
    void lastAnswerRequest().aborted.then(() => (modelRequest = 'aborted'));
    await expect.poll(() => modelRequest, { timeout: 5_000 }).toBe('aborted');
    await expect.poll(async () => (await history(account, conversationId)).length, { timeout: 5_000 }).toBe(1);
    const [message] = await history(account, conversationId);
    expect((message!.outputMessage as string).length).toBeGreaterThan(0);
    expect(message!.outputMessage).not.toBe('One. Two. Three. Four. Five. Six. Seven. Eight.');
  });

  it('refuses before streaming: unknown or foreign threads and pull requests (404), bad input (400), no session (401)', async () => {
    const owner = await createAccount(t.app, t.outbox);
    const intruder = await createAccount(t.app, t.outbox);
    answer = () => ({ text: 'ok' });
    const ownerThread = (await readAll(await chat(owner, { message: 'hello' })))[0]!.conversationId as string;
    const seeded = await seedUserData(t.app.db, owner.id);
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ message: 'hi', conversationId: ownerThread }, 404],
      [{ message: 'hi', conversationId: '00000000-0000-4000-8000-000000000000' }, 404],
      [{ message: 'hi', prId: seeded.prId }, 404],
      [{ message: 'hi', prId: seeded.pullRequestId }, 404],
      [{ message: '' }, 400],
      [{ message: 'hi', conversationId: 'not-a-uuid' }, 400],
      [{ message: 'hi', customModelData: { modelProviderName: 'custom', apiKey: 'sk-smuggled' } }, 400],
    ];
    for (const [body, status] of cases) {
      const response = await chat(intruder, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/json');
    }
    expect((await fetch(`${url}/conversation/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"hi"}' })).status).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: `/conversation/chat/${ownerThread}`, headers: { cookie: intruder.cookie }, payload: {} })).statusCode).toBe(404);
  });

  it('allowance used up: 402 before the stream; a BYOK provider chosen by customModelData then answers', async () => {
    const account = await createAccount(t.app, t.outbox);
    await t.app.db.insert(usage).values({ userId: account.id, inputCost: 0.3, outputCost: 0 });
    const refused = await chat(account, { message: 'hello' });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ statusCode: 402, error: 'Payment Required', message: expect.stringMatching(/add an API key/) });

    const { gateway, providerId } = await ownGateway(t.app, account.cookie, {
      apiKey: 'sk-chat-gateway',
      models: [{ id: 'gateway-chat' }],
      reply: () => ({ text: 'Answered on your own key.' }),
    });
    const lines = await readAll(await chat(account, { message: 'hello', customModelData: { providerId } }));
    expect(lines.filter((line) => line.type === 'content').map((line) => line.content).join('')).toBe('Answered on your own key.');
    expect(gateway.completions()[0]!.headers.authorization).toBe('Bearer sk-chat-gateway');
    const byName = await readAll(await chat(account, { message: 'again', llmModel: 'gateway-chat', customModelData: { modelProviderName: 'custom' } }));
    expect(byName.some((line) => line.type === 'content')).toBe(true);
  });
});

describe('conversation history, list and feedback', () => {
  let model: FakeOpenAIChat;
  let t: TestApp;
  beforeAll(async () => {
    model = await new FakeOpenAIChat().start();
    model.reply(() => ({ text: 'ok' }));
    t = await createTestApp({ role: 'api', env: { PLATFORM_AI_BASE_URL: model.url } });
  });
  afterAll(async () => {
    await t.close();
    await model.stop();
  });

  /** A thread with `count` messages, one second apart, through the repository. */
  async function thread(account: Account, count: number, base = Date.now() - 3_600_000) {
    const conversation = await t.app.repos.conversations.create({ userId: account.id, title: 'Seeded thread', connectedPrId: null, connectedPrTitle: null });
    for (let i = 0; i < count; i++) {
      await t.app.db.insert(aiMessages).values({ conversationId: conversation.id, inputMessage: `question ${i}`, outputMessage: `answer ${i}`, createdAt: new Date(base + i * 1000) });
    }
    return conversation.id;
  }

  it('history: the newest 100, oldest first; updatedAt is an inclusive upper bound', async () => {
    const account = await createAccount(t.app, t.outbox);
    const id = await thread(account, 120);
    const messages = (await t.app.inject({ method: 'POST', url: `/conversation/chat/${id}`, headers: { cookie: account.cookie }, payload: {} })).json<Array<{ inputMessage: string; createdAt: string }>>();
    expect(messages).toHaveLength(100);
    expect(messages[0]!.inputMessage).toBe('question 20');
    expect(messages.at(-1)!.inputMessage).toBe('question 119');
    const older = (await t.app.inject({ method: 'POST', url: `/conversation/chat/${id}`, headers: { cookie: account.cookie }, payload: { updatedAt: messages[4]!.createdAt } })).json<Array<{ inputMessage: string }>>();
    expect(older.at(-1)!.inputMessage).toBe('question 24');
    expect(older).toHaveLength(25);
  });

  it('threads: 20 newest first; lastUpdatedAt is strictly before', async () => {
    const account = await createAccount(t.app, t.outbox);
    for (let i = 0; i < 23; i++) {
      const id = await thread(account, 0);
      await t.app.db.update(aiConversations).set({ updatedAt: new Date(Date.UTC(2026, 0, 1, 0, i)) }).where(eq(aiConversations.id, id));
    }
    const firstResponse = await t.app.inject({ method: 'GET', url: '/conversation', headers: { cookie: account.cookie } });
    expect(firstResponse.headers['content-type']).toBe('application/json; charset=utf-8');
    // The database renders the page (no serializer checks it): exactly the documented items.
    const first = z.array(threadItem.strict()).parse(firstResponse.json());
    expect(first).toHaveLength(20);
    expect(first[0]!.updatedAt).toBe('2026-01-01T00:22:00.000Z');
    const next = (await t.app.inject({ method: 'GET', url: `/conversation?lastUpdatedAt=${encodeURIComponent(first.at(-1)!.updatedAt)}`, headers: { cookie: account.cookie } })).json<Array<{ updatedAt: string }>>();
    expect(next.map((item) => item.updatedAt)).toEqual(['2026-01-01T00:02:00.000Z', '2026-01-01T00:01:00.000Z', '2026-01-01T00:00:00.000Z']);
    expect((await t.app.inject({ method: 'GET', url: '/conversation?lastUpdatedAt=never', headers: { cookie: account.cookie } })).statusCode).toBe(400);
  });

  it('feedback updates the caller’s message (202) and no one else’s (404)', async () => {
    const owner = await createAccount(t.app, t.outbox);
    const intruder = await createAccount(t.app, t.outbox);
    const id = await thread(owner, 1);
    const [message] = await t.app.repos.conversations.messages(owner.id, id, undefined);
    const patch = (account: Account, payload: object) => t.app.inject({ method: 'PATCH', url: '/conversation/feedback', headers: { cookie: account.cookie }, payload });

    const response = await patch(owner, { messageId: message!.id, userFeedback: 'postive', regeneratedMsg: true });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ message: 'updated' });
    const [updated] = await t.app.repos.conversations.messages(owner.id, id, undefined);
    expect(updated).toMatchObject({ thumbsFeedback: 'postive', regenerated: true });

    expect((await patch(intruder, { messageId: message!.id, userFeedback: 'negitive' })).statusCode).toBe(404);
    expect((await t.app.repos.conversations.messages(owner.id, id, undefined))[0]!.thumbsFeedback).toBe('postive');
    expect((await patch(owner, { messageId: message!.id })).statusCode).toBe(400);
    expect((await patch(owner, { messageId: message!.id, userFeedback: 'positive' })).statusCode).toBe(400);
    expect((await patch(owner, { messageId: '00000000-0000-4000-8000-000000000000', userFeedback: 'postive' })).statusCode).toBe(404);
  });
});
