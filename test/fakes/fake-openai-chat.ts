import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FakeUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  reasoningTokens?: number;
}

/** What the fake answers to one chat completion request. */
export type ScriptedReply =
  | { text: string; usage?: FakeUsage; chunks?: number; firstTokenDelayMs?: number; chunkDelayMs?: number }
  | { toolCalls: Array<{ id?: string; name: string; arguments: unknown }>; usage?: FakeUsage }
  | { status: number; message?: string }
  /** Streams some text, then drops the connection: a model failing mid-answer. */
  | { text: string; failAfterChunks: number };

export interface ChatRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    messages: Array<{ role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }>;
    tools?: Array<{ type: string; function: { name: string } }>;
    response_format?: unknown;
    [key: string]: unknown;
  };
  /** Resolves when the client goes away before the answer is complete. */
  aborted: Promise<void>;
  /** How long the fake held the request, once answered: the model's share of a caller's time. */
  durationMs?: number;
  /** Streams: from the request's arrival to the first token written (the model's own time to first token). */
  firstTokenMs?: number;
}

const DEFAULT_USAGE: FakeUsage = { promptTokens: 100, completionTokens: 20 };

/**
 * A local OpenAI-compatible endpoint (Chat Completions, `GET /models`), speaking the wire format
 * of the real API: JSON answers, and server-sent event streams whose last chunk carries usage
 * when `stream_options.include_usage` asks for it. Replies are scripted per request.
 */
export class FakeOpenAIChat {
  readonly requests: ChatRequest[] = [];
  /** `pricing` (USD per token, as OpenRouter lists it) makes the fake stand in for OpenRouter too. */
  models: Array<{ id: string; context_length?: number; pricing?: { prompt: string; completion: string } }> = [{ id: 'fake-model' }];
  /** OpenRouter ends every stream with its usage, asked for or not; OpenAI only when asked. */
  alwaysStreamUsage = false;
  /** Key the fake accepts; requests with another bearer token get a 401. */
  apiKey: string | undefined;
  private script: (request: ChatRequest) => ScriptedReply | Promise<ScriptedReply> = () => ({ text: 'ok' });
  private readonly queue: ScriptedReply[] = [];
  private readonly arrivals = new WeakMap<ChatRequest, number>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Answers every request with `script`, unless replies are queued. */
  reply(script: (request: ChatRequest) => ScriptedReply | Promise<ScriptedReply>): this {
    this.script = script;
    return this;
  }

  /** Answers the next requests with these, in order, then falls back to the script. */
  enqueue(...replies: ScriptedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  completions(): ChatRequest[] {
    return this.requests.filter((request) => request.path.endsWith('/chat/completions'));
  }

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const raw = await new Promise<string>((resolve) => {
      let data = '';
      request.on('data', (chunk: Buffer) => (data += chunk.toString()));
      request.on('end', () => resolve(data));
    });
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const aborted = new Promise<void>((resolve) => response.on('close', () => !response.writableFinished && resolve()));
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };

    if (this.apiKey !== undefined && request.headers.authorization !== `Bearer ${this.apiKey}`) {
      return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    if (request.method === 'GET' && path.endsWith('/models')) {
      return send(200, { object: 'list', data: this.models.map((model) => ({ object: 'model', created: 1, owned_by: 'fake', ...model })) });
    }
    // OpenRouter's key check, which its catalog probe makes first.
    if (request.method === 'GET' && path.endsWith('/key')) return send(200, { data: { label: 'fake-key', usage: 0, limit: null } });
    if (request.method !== 'POST' || !path.endsWith('/chat/completions')) return send(404, { error: { message: 'Not found' } });

    const chat: ChatRequest = { path, headers: request.headers, body: JSON.parse(raw) as ChatRequest['body'], aborted };
    this.requests.push(chat);
    const started = performance.now();
    response.on('finish', () => (chat.durationMs = performance.now() - started));
    this.arrivals.set(chat, started);
    const reply = this.queue.shift() ?? (await this.script(chat));
    if ('status' in reply) return send(reply.status, { error: { message: reply.message ?? 'The fake was told to fail', type: 'server_error' } });
    if (chat.body.stream) return this.stream(chat, reply, response);
    send(200, completion(chat.body.model, reply));
  }

  private async stream(chat: ChatRequest, reply: Exclude<ScriptedReply, { status: number }>, response: ServerResponse) {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: chat.body.model };
    const event = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
    let closed = false;
    void chat.aborted.then(() => (closed = true));

    if ('toolCalls' in reply) {
      reply.toolCalls.forEach((call, index) =>
        event({
          ...base,
          choices: [
            {
              index: 0,
              delta: { role: 'assistant', tool_calls: [{ index, id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] },
              finish_reason: null,
            },
          ],
        }),
      );
      event({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    } else {
      const pieces = split(reply.text, 'failAfterChunks' in reply ? Math.max(reply.failAfterChunks + 1, 2) : (reply.chunks ?? 4));
      if ('firstTokenDelayMs' in reply && reply.firstTokenDelayMs) await sleep(reply.firstTokenDelayMs);
      for (const [index, piece] of pieces.entries()) {
        if (closed) return;
        if ('failAfterChunks' in reply && index === reply.failAfterChunks) {
          // Let what was written reach the client first: destroying at once can discard it.
          await sleep(50);
          response.destroy();
          return;
        }
        event({ ...base, choices: [{ index: 0, delta: index === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }] });
        if (index === 0) chat.firstTokenMs = performance.now() - (this.arrivals.get(chat) ?? performance.now());
        if ('chunkDelayMs' in reply && reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      }
      event({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    }
    if (chat.body.stream_options?.include_usage || this.alwaysStreamUsage) event({ ...base, choices: [], usage: usageBody('usage' in reply ? reply.usage : undefined) });
    response.write('data: [DONE]\n\n');
    response.end();
  }
}

function completion(model: string, reply: Exclude<ScriptedReply, { status: number }>) {
  const message =
    'toolCalls' in reply
      ? {
          role: 'assistant',
          content: null,
          tool_calls: reply.toolCalls.map((call, index) => ({ id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })),
        }
      : { role: 'assistant', content: reply.text };
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: 'toolCalls' in reply ? 'tool_calls' : 'stop' }],
    usage: usageBody('usage' in reply ? reply.usage : undefined),
  };
}

function usageBody(usage: FakeUsage = DEFAULT_USAGE) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

function split(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += size) pieces.push(text.slice(index, index + size));
  return pieces.length > 0 ? pieces : [''];
}
