import { describe, expect, it } from 'vitest';
import { googleRejectsKey, isGoogleChatModel } from '../../src/ai/catalog/google-catalog.js';
import { nonChatReason } from '../../src/ai/catalog/non-chat-models.js';
import { isOpenAiChatModel } from '../../src/ai/catalog/openai-catalog.js';
import { isOpenRouterChatModel } from '../../src/ai/catalog/openrouter-catalog.js';
import { normalizeCatalog } from '../../src/ai/catalog/provider-catalog.js';

describe('non-chat model ids (every provider)', () => {
  it.each([
    ['text-embedding-3-large', 'embeddings'],
    ['nomic-embed-text:latest', 'embeddings'],
    ['gemini-embedding-001', 'embeddings'],
    ['bge-reranker-v2-m3', 'reranking'],
    ['omni-moderation-latest', 'moderation'],
    ['whisper-1', 'speech and audio'],
    ['gpt-4o-transcribe', 'speech and audio'],
    ['tts-1-hd', 'speech and audio'],
    ['gpt-4o-mini-tts', 'speech and audio'],
    ['gemini-2.5-flash-preview-tts', 'speech and audio'],
    ['gpt-audio', 'speech and audio'],
    ['gemini-2.5-flash-native-audio-preview-09-2025', 'speech and audio'],
    ['dall-e-3', 'image and video generation'],
    ['gpt-image-1', 'image and video generation'],
    ['imagen-4.0-generate-001', 'image and video generation'],
    ['gemini-2.5-flash-image', 'image and video generation'],
    ['sora-2-pro', 'image and video generation'],
    ['veo-3.0-generate-001', 'image and video generation'],
    ['babbage-002', 'legacy completions'],
    ['ft:davinci-002:acme::abc', 'legacy completions'],
    ['gpt-4o-search-preview', 'search, realtime and computer-use variants'],
    ['o3-deep-research', 'search, realtime and computer-use variants'],
    ['gpt-realtime', 'search, realtime and computer-use variants'],
    ['computer-use-preview', 'search, realtime and computer-use variants'],
  ])('%s: %s', (id, reason) => {
    expect(nonChatReason(id)).toBe(reason);
  });

  it.each([
    'gpt-4o',
    'gpt-5-codex',
    'o4-mini',
    'claude-sonnet-4-20250514',
    'gemini-2.5-pro',
    'gemma-3-27b-it',
    'Qwen/Qwen2.5-VL-72B-Instruct',
    'llama3.2-vision:11b',
    'deepseek-r1:14b',
    'mistral-large-2411',
    'perplexity/sonar',
  ])('%s is a chat model', (id) => {
    expect(nonChatReason(id)).toBeNull();
  });
});

describe('provider rules', () => {
  it('OpenAI: also drops the completion-only gpt-3.5-turbo-instruct, not gpt-3.5-turbo', () => {
    expect(isOpenAiChatModel('gpt-3.5-turbo-instruct')).toBe(false);
    expect(isOpenAiChatModel('gpt-3.5-turbo-instruct-0914')).toBe(false);
    expect(isOpenAiChatModel('gpt-3.5-turbo')).toBe(true);
    // Elsewhere `-instruct` is a chat tune (see the custom catalog), so the rule is OpenAI's alone.
    expect(nonChatReason('Qwen2.5-7B-Instruct')).toBeNull();
  });

  it('Google: needs generateContent, then the shared id rule', () => {
    expect(isGoogleChatModel('gemini-2.5-pro', ['generateContent', 'countTokens'])).toBe(true);
    expect(isGoogleChatModel('aqa', ['generateAnswer'])).toBe(false);
    expect(isGoogleChatModel('gemini-2.0-flash-live-001', ['bidiGenerateContent'])).toBe(false);
    expect(isGoogleChatModel('gemini-2.5-flash-preview-tts', ['generateContent'])).toBe(false);
  });

  it('Google: a 400 blames the key only with reason API_KEY_INVALID', () => {
    const invalidKey = {
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
          { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
        ],
      },
    };
    expect(googleRejectsKey(400, invalidKey)).toBe(true);
    expect(googleRejectsKey(400, { error: { code: 400, message: 'Invalid page token.', status: 'INVALID_ARGUMENT' } })).toBe(false);
    expect(googleRejectsKey(400, undefined)).toBe(false);
    expect(googleRejectsKey(500, invalidKey)).toBe(false);
  });

  it('OpenRouter: text out and no generated media; no modality information means text', () => {
    const model = (outputs: string[] | undefined, modality?: string) => ({ id: 'vendor/model', architecture: { output_modalities: outputs, modality } });
    expect(isOpenRouterChatModel(model(['text']))).toBe(true);
    expect(isOpenRouterChatModel(model(['image', 'text']))).toBe(false);
    expect(isOpenRouterChatModel(model(['text', 'audio']))).toBe(false);
    expect(isOpenRouterChatModel(model(['embeddings']))).toBe(false);
    expect(isOpenRouterChatModel(model(undefined, 'text+image->text'))).toBe(true);
    expect(isOpenRouterChatModel(model(undefined, 'text->image'))).toBe(false);
    expect(isOpenRouterChatModel({ id: 'vendor/model' })).toBe(true);
    expect(isOpenRouterChatModel({ id: 'openai/gpt-4o-search-preview', architecture: { output_modalities: ['text'] } })).toBe(false);
  });
});

describe('normalization', () => {
  const model = (id: string, contextLength: number | null = null) => ({ id, name: id, contextLength });

  it('keeps the first entry of an id', () => {
    expect(normalizeCatalog([model('a', 1), model('b'), model('a', 2)])).toEqual([model('a', 1), model('b')]);
  });

  it('sorts by id with numbers compared as numbers, whatever the input order', () => {
    const ids = ['gpt-10', 'gpt-5', 'gpt-4o', 'gpt-4.1', 'claude-3-haiku', 'claude-3-5-haiku'];
    const expected = ['claude-3-5-haiku', 'claude-3-haiku', 'gpt-4.1', 'gpt-4o', 'gpt-5', 'gpt-10'];
    expect(normalizeCatalog(ids.map((id) => model(id))).map((entry) => entry.id)).toEqual(expected);
    expect(normalizeCatalog([...ids].reverse().map((id) => model(id))).map((entry) => entry.id)).toEqual(expected);
  });
});
