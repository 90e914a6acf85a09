import type { FastifyInstance } from 'fastify';
import { expect, onTestFinished } from 'vitest';
import { FakeOpenAIChat, type ChatRequest, type ScriptedReply } from '../fakes/fake-openai-chat.js';

export interface GatewayOptions {
  /** The key the gateway accepts, and the one registered for it. */
  apiKey: string;
  models: FakeOpenAIChat['models'];
  reply?: (request: ChatRequest) => ScriptedReply;
}

/** A user's own OpenAI-compatible gateway (a LiteLLM, a vLLM): a fake that takes only `apiKey`. */
export async function startGateway({ apiKey, models, reply }: GatewayOptions): Promise<FakeOpenAIChat> {
  const gateway = await new FakeOpenAIChat().start();
  gateway.apiKey = apiKey;
  gateway.models = models;
  if (reply !== undefined) gateway.reply(reply);
  return gateway;
}

/** Registers `gateway` as the signed-in user's custom provider, with its key (201); returns the provider id. */
export async function registerGateway(app: FastifyInstance, cookie: string, gateway: FakeOpenAIChat): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/byok',
    headers: { cookie },
    payload: { modelProviderName: 'custom', customBaseUrl: gateway.url, apiKey: gateway.apiKey },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

/** Both, inside a test: a gateway of the user's own, registered, stopped when the test ends. */
export async function ownGateway(app: FastifyInstance, cookie: string, options: GatewayOptions): Promise<{ gateway: FakeOpenAIChat; providerId: string }> {
  const gateway = await startGateway(options);
  onTestFinished(() => gateway.stop());
  return { gateway, providerId: await registerGateway(app, cookie, gateway) };
}
