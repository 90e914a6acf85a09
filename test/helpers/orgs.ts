import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { createAccount, type Account } from './accounts.js';
import type { Outbox } from './outbox.js';

export interface Org {
  id: string;
  name: string;
  slug: string;
  role: string;
  monthlySpendLimitUsd: number | null;
  createdAt: string;
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A request as `cookie`'s account (no cookie: signed out). */
export const callAs = (app: FastifyInstance, cookie: string | undefined, method: Method, url: string, payload?: object) =>
  app.inject({ method, url, headers: cookie === undefined ? {} : { cookie }, ...(payload === undefined ? {} : { payload }) });

export async function createOrg(app: FastifyInstance, owner: Account, name = 'Acme Platform'): Promise<Org> {
  const response = await callAs(app, owner.cookie, 'POST', '/orgs', { name });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Org>();
}

/** The token of the newest invitation email to `email`, read from the outbox as the invitee would. */
export async function invitationToken(outbox: Outbox, email: string, since?: ReadonlySet<string>): Promise<string> {
  const message = await outbox.latest(email.toLowerCase(), { since });
  const match = /\/invitations\/([0-9a-f]{64})/.exec(message.text);
  if (!match) throw new Error(`no invitation link in ${message.file}`);
  return match[1]!;
}

/** Invites `email` as `role` (201) and reads the token from the email. */
export async function invite(app: FastifyInstance, outbox: Outbox, by: Account, orgId: string, email: string, role = 'member') {
  const since = await outbox.mark();
  const response = await callAs(app, by.cookie, 'POST', `/orgs/${orgId}/invitations`, { email, role });
  expect(response.statusCode, response.body).toBe(201);
  return { invitation: response.json<{ id: string; email: string; role: string; expiresAt: string }>(), token: await invitationToken(outbox, email, since) };
}

/** A new account that joins the organization with `role` through an invitation from `by`. */
export async function joinedAccount(app: FastifyInstance, outbox: Outbox, by: Account, orgId: string, role = 'member', name = 'Teammate'): Promise<Account> {
  const account = await createAccount(app, outbox, { name });
  const { token } = await invite(app, outbox, by, orgId, account.email, role);
  const accepted = await callAs(app, account.cookie, 'POST', '/invitations/accept', { token });
  expect(accepted.statusCode, accepted.body).toBe(200);
  return account;
}
