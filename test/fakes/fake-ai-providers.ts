import { randomBytes } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeProviderFlavor = 'openai' | 'anthropic' | 'google' | 'openrouter' | 'custom';

/** A model as the provider's list carries it, in the provider's own field names. */
export type FakeModel = Record<string, unknown>;

/**
 * What the fake does instead of answering well. `path` (relative to the base URL, e.g. `/models`)
 * limits the fault to one endpoint; without it every request gets it.
 */
export type FakeFault =
  | { kind: 'delay'; ms: number; path?: string }
  | { kind: 'status'; status: number; path?: string }
  | { kind: 'garbage'; path?: string }
  | { kind: 'wrong-shape'; path?: string }
  | { kind: 'redirect'; location: string; path?: string };

export interface RecordedProviderRequest {
  method: string;
  /** Path and query exactly as received. */
  url: string;
  /** Path relative to the base URL, e.g. `/models`. */
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
}

export interface FakeProviderOptions {
  apiKey?: string;
  models?: FakeModel[];
  /** Anthropic and Google: the most one page holds. The real APIs allow 1000; lower it to see pages. */
  pageSize?: number;
  /** Custom only: false for a server without auth (Ollama). */
  requireKey?: boolean;
}

const BASE_PATHS: Record<FakeProviderFlavor, string> = {
  openai: '/v1',
  anthropic: '/v1',
  google: '/v1beta',
  openrouter: '/api/v1',
  custom: '/v1',
};

const KEY_PREFIXES: Record<FakeProviderFlavor, string> = {
  openai: 'sk-proj-',
  anthropic: 'sk-ant-api03-',
  google: 'AIzaSy',
  openrouter: 'sk-or-v1-',
  custom: 'sk-litellm-',
};

/** A fresh key in the provider's format, so a test can look for it in whatever comes back. */
export const fakeApiKey = (flavor: FakeProviderFlavor) => `${KEY_PREFIXES[flavor]}${randomBytes(24).toString('hex')}`;

/**
 * A local model provider speaking one real list format: the provider's endpoint paths, auth scheme
 * and error bodies (what a wrong or missing key gets), its pagination, and a catalog that mixes
 * chat models with the embedding, speech and image models the real lists carry. It records every
 * request and can be told to be slow, fail, answer garbage or redirect.
 */
export class FakeAiProvider {
  readonly requests: RecordedProviderRequest[] = [];
  apiKey: string;
  models: FakeModel[];
  pageSize: number;
  requireKey: boolean;
  fault: FakeFault | undefined;
  /** What a caller passes as `baseUrl`: origin plus the provider's version path, no trailing slash. */
  url = '';
  private server: Server | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    readonly flavor: FakeProviderFlavor,
    private readonly options: FakeProviderOptions,
  ) {
    this.apiKey = options.apiKey ?? fakeApiKey(flavor);
    this.models = options.models ?? DEFAULT_MODELS[flavor]();
    this.pageSize = options.pageSize ?? 1000;
    this.requireKey = options.requireKey ?? true;
  }

  static async start(flavor: FakeProviderFlavor, options: FakeProviderOptions = {}): Promise<FakeAiProvider> {
    const fake = new FakeAiProvider(flavor, options);
    fake.server = createServer((request, response) => void fake.handle(request, response));
    await new Promise<void>((resolve) => fake.server!.listen(0, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}${BASE_PATHS[flavor]}`;
    return fake;
  }

  /** Back to the state `start` left: no requests, no fault, the starting catalog. */
  reset() {
    this.requests.length = 0;
    this.fault = undefined;
    this.models = this.options.models ?? DEFAULT_MODELS[this.flavor]();
    this.pageSize = this.options.pageSize ?? 1000;
    this.requireKey = this.options.requireKey ?? true;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    // Delayed answers hold their sockets open; close() alone would wait for them.
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://fake');
    const base = BASE_PATHS[this.flavor];
    const path = url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : url.pathname;
    this.requests.push({ method: request.method ?? 'GET', url: request.url ?? '/', path, query: Object.fromEntries(url.searchParams), headers: request.headers });
    const send = (status: number, payload: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
      // The client may have given up (timeout) while the answer was delayed.
      if (response.destroyed) return;
      response.writeHead(status, headers);
      response.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
    };

    const fault = this.fault !== undefined && (this.fault.path === undefined || this.fault.path === path) ? this.fault : undefined;
    if (fault?.kind === 'delay') await this.sleep(fault.ms);
    if (fault?.kind === 'status') return send(fault.status, this.errorBody(fault.status));
    // A body cut off mid-way, as a proxy that drops the upstream connection sends it.
    if (fault?.kind === 'garbage') return send(200, '{"data":[{"id":"gpt-4o","object":"mod');
    if (fault?.kind === 'wrong-shape') return send(200, { [this.flavor === 'google' ? 'models' : 'data']: { id: 'not-a-list' } });
    if (fault?.kind === 'redirect') return send(302, '', { location: fault.location });

    if (request.method !== 'GET' || !url.pathname.startsWith(`${base}/`)) return send(404, this.errorBody(404));
    const answer = this.route(path, url.searchParams, request.headers);
    send(answer.status, answer.body);
  }

  private route(path: string, query: URLSearchParams, headers: IncomingMessage['headers']): { status: number; body: unknown } {
    switch (this.flavor) {
      case 'openai':
      case 'custom': {
        if (path !== '/models') return { status: 404, body: this.errorBody(404) };
        return this.checkBearer(headers) ?? { status: 200, body: { object: 'list', data: this.models } };
      }
      case 'anthropic':
        return path === '/models' ? (this.checkAnthropicAuth(headers) ?? this.anthropicPage(query)) : { status: 404, body: this.errorBody(404) };
      case 'google':
        return path === '/models' ? (this.checkGoogleAuth(headers, query) ?? this.googlePage(query)) : { status: 404, body: this.errorBody(404) };
      case 'openrouter':
        if (path === '/key') return this.checkBearer(headers) ?? { status: 200, body: this.openRouterKeyInfo() };
        // The model list is public: no key asked, none checked.
        if (path === '/models') return { status: 200, body: { data: this.models } };
        return { status: 404, body: this.errorBody(404) };
    }
  }

  /** OpenAI, OpenRouter and OpenAI-compatible servers: `authorization: Bearer <key>`. */
  private checkBearer(headers: IncomingMessage['headers']): { status: number; body: unknown } | undefined {
    if (this.flavor === 'custom' && !this.requireKey) return undefined;
    const authorization = headers.authorization;
    const sent = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
    if (sent === this.apiKey) return undefined;
    if (this.flavor === 'openrouter') {
      return { status: 401, body: { error: { message: sent === undefined ? 'No auth credentials found' : 'User not found.', code: 401 } } };
    }
    // vLLM started with --api-key answers exactly this.
    if (this.flavor === 'custom') return { status: 401, body: { error: 'Unauthorized' } };
    if (sent === undefined) {
      return {
        status: 401,
        body: {
          error: {
            message:
              "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        },
      };
    }
    // OpenAI quotes the wrong key back, partly masked: one reason never to pass its messages on.
    const masked = `${sent.slice(0, 8)}${'*'.repeat(Math.max(sent.length - 12, 0))}${sent.slice(-4)}`;
    return {
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    };
  }

  private checkAnthropicAuth(headers: IncomingMessage['headers']): { status: number; body: unknown } | undefined {
    const sent = headers['x-api-key'];
    if (sent !== this.apiKey) {
      const message = sent === undefined ? 'x-api-key header is required' : 'invalid x-api-key';
      return { status: 401, body: anthropicError('authentication_error', message) };
    }
    if (headers['anthropic-version'] === undefined) return { status: 400, body: anthropicError('invalid_request_error', 'anthropic-version: header is required') };
    return undefined;
  }

  /** `limit` 1–1000 (default 20), `after_id` the last id of the previous page; newest models first. */
  private anthropicPage(query: URLSearchParams): { status: number; body: unknown } {
    const limit = Number(query.get('limit') ?? '20');
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      return { status: 400, body: anthropicError('invalid_request_error', 'limit: Input should be less than or equal to 1000') };
    }
    const afterId = query.get('after_id');
    const start = afterId === null ? 0 : this.models.findIndex((model) => model.id === afterId) + 1;
    if (afterId !== null && start === 0) return { status: 400, body: anthropicError('invalid_request_error', `after_id: unknown model id ${afterId}`) };
    const page = this.models.slice(start, start + Math.min(limit, this.pageSize));
    return {
      status: 200,
      body: {
        data: page,
        has_more: start + page.length < this.models.length,
        first_id: (page[0]?.id as string | undefined) ?? null,
        last_id: (page.at(-1)?.id as string | undefined) ?? null,
      },
    };
  }

  /**
   * Gemini API: the key in `x-goog-api-key` or `?key=`. A missing key is a 403; a wrong one is a
   * 400 INVALID_ARGUMENT with reason API_KEY_INVALID, not a 401.
   */
  private checkGoogleAuth(headers: IncomingMessage['headers'], query: URLSearchParams): { status: number; body: unknown } | undefined {
    const sent = headers['x-goog-api-key'] ?? query.get('key') ?? undefined;
    if (sent === this.apiKey) return undefined;
    if (sent === undefined) {
      return {
        status: 403,
        body: googleError(
          403,
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        ),
      };
    }
    const message = 'API key not valid. Please pass a valid API key.';
    return {
      status: 400,
      body: googleError(400, message, [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
        { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
      ]),
    };
  }

  /** `pageSize` default 50, above 1000 coerced to 1000; `pageToken` opaque; empty fields left out (proto3 JSON). */
  private googlePage(query: URLSearchParams): { status: number; body: unknown } {
    const requested = Number(query.get('pageSize') ?? '50');
    const size = Math.min(requested > 0 ? requested : 50, 1000, this.pageSize);
    const token = query.get('pageToken');
    const start = token === null || token === '' ? 0 : decodePageToken(token);
    if (start === undefined) return { status: 400, body: googleError(400, 'Invalid page token.') };
    const page = this.models.slice(start, start + size);
    const body: Record<string, unknown> = {};
    if (page.length > 0) body.models = page;
    if (start + page.length < this.models.length) body.nextPageToken = encodePageToken(start + page.length);
    return { status: 200, body };
  }

  private openRouterKeyInfo() {
    return {
      data: {
        label: `${this.apiKey.slice(0, 11)}...${this.apiKey.slice(-3)}`,
        limit: null,
        usage: 0.0153,
        is_free_tier: false,
        is_provisioning_key: false,
        limit_remaining: null,
        rate_limit: { requests: -1, interval: '10s' },
      },
    };
  }

  /** The body each provider sends with an error status. */
  private errorBody(status: number): unknown {
    const message = STATUS_CODES[status] ?? 'Error';
    switch (this.flavor) {
      case 'openai':
        return { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null } };
      case 'anthropic':
        return anthropicError(ANTHROPIC_ERROR_TYPES[status] ?? 'api_error', message);
      case 'google':
        return googleError(status, message);
      case 'openrouter':
        return { error: { message, code: status } };
      case 'custom':
        return { object: 'error', message, type: message.replaceAll(' ', ''), param: null, code: status };
    }
  }

  private sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const anthropicError = (type: string, message: string) => ({
  type: 'error',
  error: { type, message },
  request_id: `req_011C${randomBytes(9).toString('base64url')}`,
});

const GOOGLE_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

const googleError = (code: number, message: string, details?: unknown[]) => ({
  error: { code, message, status: GOOGLE_STATUSES[code] ?? 'UNKNOWN', ...(details === undefined ? {} : { details }) },
});

const encodePageToken = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');

function decodePageToken(token: string): number | undefined {
  const match = /^offset:(\d+)$/.exec(Buffer.from(token, 'base64url').toString());
  return match ? Number(match[1]) : undefined;
}

const openAiModel = (id: string, ownedBy = 'system', created = 1_715_367_049): FakeModel => ({ id, object: 'model', created, owned_by: ownedBy });

const geminiModel = (id: string, displayName: string, inputTokenLimit: number, methods: string[], outputTokenLimit = 8192): FakeModel => ({
  name: `models/${id}`,
  version: '001',
  displayName,
  description: `${displayName}.`,
  inputTokenLimit,
  outputTokenLimit,
  supportedGenerationMethods: methods,
  temperature: 1,
  topP: 0.95,
  topK: 40,
  maxTemperature: 2,
});

const openRouterModel = (id: string, name: string, contextLength: number | null, inputs: string[], outputs: string[]): FakeModel => ({
  id,
  canonical_slug: id,
  name,
  created: 1_747_000_000,
  description: `${name}.`,
  context_length: contextLength,
  architecture: { modality: `${inputs.join('+')}->${outputs.join('+')}`, input_modalities: inputs, output_modalities: outputs, tokenizer: 'Other', instruct_type: null },
  pricing: { prompt: '0.0000025', completion: '0.00001', request: '0', image: '0' },
  top_provider: { context_length: contextLength, max_completion_tokens: 16_384, is_moderated: true },
  per_request_limits: null,
  supported_parameters: ['max_tokens', 'temperature', 'tools'],
});

/** Catalogs shaped like each provider's real list, non-chat models included. Built fresh per fake. */
const DEFAULT_MODELS: Record<FakeProviderFlavor, () => FakeModel[]> = {
  openai: () => [
    openAiModel('gpt-4o'),
    openAiModel('gpt-4o-2024-08-06'),
    openAiModel('gpt-4o-mini'),
    openAiModel('gpt-4.1'),
    openAiModel('gpt-5'),
    openAiModel('o3-mini'),
    openAiModel('chatgpt-4o-latest'),
    openAiModel('gpt-3.5-turbo', 'openai'),
    openAiModel('ft:gpt-4o-mini-2024-07-18:acme::9AbCdEf', 'acme-org'),
    openAiModel('gpt-3.5-turbo-instruct'),
    openAiModel('babbage-002'),
    openAiModel('davinci-002'),
    openAiModel('text-embedding-3-small'),
    openAiModel('text-embedding-ada-002', 'openai-internal'),
    openAiModel('omni-moderation-latest'),
    openAiModel('whisper-1', 'openai-internal'),
    openAiModel('tts-1-hd'),
    openAiModel('gpt-4o-mini-tts'),
    openAiModel('gpt-4o-transcribe'),
    openAiModel('gpt-4o-audio-preview'),
    openAiModel('gpt-4o-realtime-preview'),
    openAiModel('gpt-4o-search-preview'),
    openAiModel('computer-use-preview'),
    openAiModel('dall-e-3'),
    openAiModel('gpt-image-1'),
    openAiModel('sora-2'),
  ],
  // Newest first, as Anthropic lists them. Only the newer entries carry max_input_tokens.
  anthropic: () => [
    { type: 'model', id: 'claude-opus-4-1-20250805', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z', max_input_tokens: 200_000, max_tokens: 32_000 },
    { type: 'model', id: 'claude-sonnet-4-20250514', display_name: 'Claude Sonnet 4', created_at: '2025-05-22T00:00:00Z', max_input_tokens: 1_000_000, max_tokens: 64_000 },
    { type: 'model', id: 'claude-3-7-sonnet-20250219', display_name: 'Claude Sonnet 3.7', created_at: '2025-02-24T00:00:00Z' },
    { type: 'model', id: 'claude-3-5-haiku-20241022', display_name: 'Claude Haiku 3.5', created_at: '2024-10-22T00:00:00Z' },
    { type: 'model', id: 'claude-3-haiku-20240307', display_name: 'Claude Haiku 3', created_at: '2024-03-07T00:00:00Z' },
  ],
  google: () => [
    geminiModel('gemini-2.5-pro', 'Gemini 2.5 Pro', 1_048_576, ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'], 65_536),
    geminiModel('gemini-2.5-flash', 'Gemini 2.5 Flash', 1_048_576, ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'], 65_536),
    geminiModel('gemini-2.0-flash', 'Gemini 2.0 Flash', 1_048_576, ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent']),
    geminiModel('gemma-3-27b-it', 'Gemma 3 27B', 131_072, ['generateContent', 'countTokens']),
    geminiModel('gemini-2.5-flash-preview-tts', 'Gemini 2.5 Flash Preview TTS', 8192, ['countTokens', 'generateContent'], 16_384),
    geminiModel('gemini-2.0-flash-preview-image-generation', 'Gemini 2.0 Flash Preview Image Generation', 32_768, ['generateContent', 'countTokens']),
    geminiModel('gemini-2.5-flash-image', 'Nano Banana', 32_768, ['generateContent', 'countTokens', 'batchGenerateContent']),
    geminiModel('gemini-2.0-flash-live-001', 'Gemini 2.0 Flash 001', 131_072, ['bidiGenerateContent', 'countTokens']),
    geminiModel('embedding-001', 'Embedding 001', 2048, ['embedContent'], 1),
    geminiModel('text-embedding-004', 'Text Embedding 004', 2048, ['embedContent'], 1),
    geminiModel('gemini-embedding-001', 'Gemini Embedding 001', 2048, ['embedContent', 'countTextTokens', 'countTokens', 'asyncBatchEmbedContent'], 1),
    geminiModel('aqa', 'Model that performs Attributed Question Answering.', 7168, ['generateAnswer'], 1024),
    geminiModel('imagen-4.0-generate-001', 'Imagen 4', 480, ['predict']),
    geminiModel('veo-2.0-generate-001', 'Veo 2', 480, ['predictLongRunning']),
  ],
  openrouter: () => [
    openRouterModel('openai/gpt-4o', 'OpenAI: GPT-4o', 128_000, ['text', 'image', 'file'], ['text']),
    openRouterModel('anthropic/claude-sonnet-4', 'Anthropic: Claude Sonnet 4', 1_000_000, ['image', 'text', 'file'], ['text']),
    openRouterModel('meta-llama/llama-3.3-70b-instruct:free', 'Meta: Llama 3.3 70B Instruct (free)', 131_072, ['text'], ['text']),
    openRouterModel('openrouter/auto', 'Auto Router', 2_000_000, ['text', 'image'], ['text']),
    openRouterModel('google/gemini-2.5-flash-image', 'Google: Gemini 2.5 Flash Image (Nano Banana)', 32_768, ['image', 'text'], ['image', 'text']),
    openRouterModel('openai/gpt-4o-audio-preview', 'OpenAI: GPT-4o Audio', 128_000, ['audio', 'text'], ['text', 'audio']),
    openRouterModel('openai/text-embedding-3-small', 'OpenAI: Text Embedding 3 Small', 8192, ['text'], ['embeddings']),
    openRouterModel('perplexity/sonar-deep-research', 'Perplexity: Sonar Deep Research', 128_000, ['text'], ['text']),
  ],
  // A LiteLLM-style gateway in front of vLLM and Ollama: vLLM entries carry max_model_len, others
  // nothing; a model served by two backends is listed twice.
  custom: () => [
    { ...openAiModel('Qwen/Qwen2.5-Coder-32B-Instruct', 'vllm'), root: 'Qwen/Qwen2.5-Coder-32B-Instruct', parent: null, max_model_len: 32_768 },
    { ...openAiModel('llama3.1:8b-instruct-q4_K_M', 'library'), context_length: 131_072 },
    openAiModel('deepseek-r1:14b', 'library'),
    openAiModel('deepseek-r1:14b', 'library'),
    openAiModel('nomic-embed-text:latest', 'library'),
    openAiModel('bge-reranker-v2-m3', 'vllm'),
    openAiModel('whisper-large-v3', 'vllm'),
  ],
};
