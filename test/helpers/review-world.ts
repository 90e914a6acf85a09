import type { RetryPolicies } from '../../src/adapters/queue/job-queue.js';
import type { WorkerOptions } from '../../src/plugins/app/workers.js';
import { FakeGitHub } from '../fakes/fake-github.js';
import { FakeOpenAIChat } from '../fakes/fake-openai-chat.js';
import { githubEnv, type GitHubSignIn } from './github-login.js';
import { createTestApp, type TestApp } from './test-app.js';
import { examplePayload, signedDelivery, WEBHOOK_SECRET, type PayloadOverrides } from './webhooks.js';

const PLATFORM_MODELS = [
  { id: 'platform-a', name: 'Platform A', contextLength: 32_000, inputPrice: 1, outputPrice: 2 },
  { id: 'platform-b', name: 'Platform B', contextLength: 64_000, inputPrice: 2, outputPrice: 4 },
];

/** Retries that take milliseconds, so failure paths run in a test's time. */
const FAST_RETRIES: Partial<RetryPolicies> = {
  unprocessedWebhookPayload: { attempts: 3, backoffMs: 20 },
  sanitizedPrPayload: { attempts: 3, backoffMs: 20 },
  extractedPrContent: { attempts: 2, backoffMs: 20 },
  completedReview: { attempts: 3, backoffMs: 20 },
  appCommand: { attempts: 3, backoffMs: 20 },
  reviewEmail: { attempts: 3, backoffMs: 20 },
  diffReview: { attempts: 2, backoffMs: 20 },
};

export interface ReviewWorld<G extends FakeGitHub = FakeGitHub> {
  t: TestApp;
  github: G;
  model: FakeOpenAIChat;
  close(): Promise<void>;
}

/** The whole service with its workers (`workers` tunes them), a fake GitHub (the plain one unless given) and a fake platform model. */
export async function reviewWorld<G extends FakeGitHub = FakeGitHub>(env: Record<string, string> = {}, fake?: G, workers?: WorkerOptions): Promise<ReviewWorld<G>> {
  const github = await (fake ?? (new FakeGitHub() as G)).start();
  const model = await new FakeOpenAIChat().start();
  const t = await createTestApp({
    env: {
      ...githubEnv(github),
      GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PLATFORM_AI_BASE_URL: model.url,
      PLATFORM_AI_API_KEY: 'platform-key',
      PLATFORM_MODELS: JSON.stringify(PLATFORM_MODELS),
      ...env,
    },
    infrastructure: { queue: { retry: FAST_RETRIES } },
    ...(workers === undefined ? {} : { workers }),
  });
  return {
    t,
    github,
    model,
    close: async () => {
      await t.close();
      await model.stop();
      await github.stop();
    },
  };
}

/** Delivers a signed `pull_request` event whose diff the fake GitHub serves. */
export async function deliverPullRequest(world: ReviewWorld, author: Pick<GitHubSignIn, 'githubId'>, diff: string, overrides: Omit<PayloadOverrides, 'authorId'> = {}) {
  const payload = examplePayload({ authorId: author.githubId, ...overrides });
  world.github.setDiff(payload.repository.full_name, payload.pull_request.number, diff);
  const response = await world.t.app.inject(await signedDelivery(payload));
  if (response.statusCode !== 200) throw new Error(`delivery refused: ${response.statusCode} ${response.body}`);
  return payload;
}
