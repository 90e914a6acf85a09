import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

export interface CreatedToken {
  id: string;
  name: string;
  token: string;
  prefix: string;
  createdAt: string;
  expiresAt: string;
}

/** Creates a personal API token with a session, as the web app does. */
export async function createToken(app: FastifyInstance, cookie: string, payload: { name?: string; expiresInDays?: number } = {}): Promise<CreatedToken> {
  const response = await app.inject({ method: 'POST', url: '/auth/tokens', headers: { cookie }, payload: { name: 'ci', ...payload } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<CreatedToken>();
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
