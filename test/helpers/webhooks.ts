import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { sign } from '@octokit/webhooks-methods';
import type { PullRequestEvent } from '@octokit/webhooks-types';
import type { InjectOptions } from 'fastify';

// The package's entry point is a JSON file.
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as unknown;

export const WEBHOOK_SECRET = 'test-webhook-secret';

type Example = PullRequestEvent;

/** GitHub's own recorded pull_request payloads, one per action variant. */
export const pullRequestExamples: Example[] = (examples as Array<{ name: string; examples: Example[] }>).find((entry) => entry.name === 'pull_request')!.examples;

export interface PayloadOverrides {
  authorId: number;
  prId?: number;
  action?: string;
  headSha?: string;
  baseSha?: string;
  title?: string;
  updatedAt?: string;
  draft?: boolean;
  number?: number;
  repository?: { id: number; full_name: string };
}

let nextPrId = 700_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
export const newPrId = () => nextPrId++;

/** A real example payload (the first of `action`), retargeted at a test author and pull request. */
export function examplePayload(overrides: PayloadOverrides): Example {
  const action = overrides.action ?? 'opened';
  const base = pullRequestExamples.find((example) => example.action === action) ?? pullRequestExamples[0]!;
  const payload = structuredClone(base);
  (payload as { action: string }).action = action;
  const pr = payload.pull_request;
  pr.id = overrides.prId ?? newPrId();
  pr.user.id = overrides.authorId;
  if (overrides.number !== undefined) {
    pr.number = overrides.number;
    payload.number = overrides.number;
  }
  if (overrides.headSha !== undefined) pr.head.sha = overrides.headSha;
  if (overrides.baseSha !== undefined) pr.base.sha = overrides.baseSha;
  if (overrides.title !== undefined) pr.title = overrides.title;
  if (overrides.updatedAt !== undefined) pr.updated_at = overrides.updatedAt;
  if (overrides.draft !== undefined) pr.draft = overrides.draft;
  if (overrides.repository !== undefined) Object.assign(payload.repository, overrides.repository);
  return payload;
}

/** How a delivery differs from the one GitHub would send. */
export interface DeliveryOptions {
  secret?: string;
  event?: string;
  deliveryId?: string;
  /** Extra headers, or replacements for GitHub's. */
  headers?: Record<string, string>;
  /** GitHub's headers to leave out (after `headers` are applied), e.g. `x-hub-signature-256`. */
  omit?: string[];
}

/** GitHub's headers for a body: the signature with the secret, the event and a delivery id. */
export async function signedHeaders(
  body: string,
  { secret = WEBHOOK_SECRET, event = 'pull_request', deliveryId = randomUUID(), headers = {}, omit = [] }: DeliveryOptions = {},
): Promise<Record<string, string>> {
  const all: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-event': event,
    'x-github-delivery': deliveryId,
    'x-hub-signature-256': await sign(secret, body),
    ...headers,
  };
  return Object.fromEntries(Object.entries(all).filter(([name]) => !omit.includes(name)));
}

/** The request GitHub would send: `payload` (a string goes as is) signed with the secret, the event and a delivery id. */
export async function signedDelivery(payload: unknown, options: DeliveryOptions = {}): Promise<InjectOptions> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return { method: 'POST', url: '/webhook', payload: body, headers: await signedHeaders(body, options) };
}
