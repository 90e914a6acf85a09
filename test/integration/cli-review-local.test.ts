import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAIChat, type ChatRequest } from '../fakes/fake-openai-chat.js';
import { runCli, write } from '../helpers/cli.js';
import { PRICE_FINDING } from '../helpers/diff-reviews.js';
import { createGitFixture } from '../helpers/git-fixture.js';
import { scriptedReviewer } from '../helpers/review-fixtures.js';

const PRICE = "import { taxOf } from './tax';\n\nexport function total(net: number): number {\n  return net + taxOf(net);\n}\n";
const TAX = 'export function taxOf(net: number): number {\n  // VAT_RATE_MARKER\n  return net * 0.2;\n}\n';

/** `--local`: the engine in the command's own process against an OpenAI-compatible server, no service anywhere (decisions.md §17). */
describe('ai-review review --local', () => {
  let model: FakeOpenAIChat;
  let dir: string;
  let firstCallAt: number | undefined;
  beforeAll(async () => {
    model = await new FakeOpenAIChat().start();
    const scripted = scriptedReviewer([PRICE_FINDING]);
    model.reply((request: ChatRequest) => {
      firstCallAt ??= Date.now();
      return scripted(request);
    });
    dir = createGitFixture([{ 'src/price.ts': PRICE, 'src/tax.ts': TAX, '.ai-review.yml': 'reviews:\n  mode: quick\n' }]).dir;
  });
  afterAll(async () => {
    await model?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const local = { AI_REVIEW_MODEL: 'openai:local-model', AI_REVIEW_BASE_URL: '' };

  it('reviews the work tree with the model at AI_REVIEW_BASE_URL, code context read from disk, and starts fast', async () => {
    write(dir, 'src/price.ts', PRICE.replace('net + taxOf', 'net - taxOf'));
    // No AI_REVIEW_URL or token: a service would be unreachable anyway.
    const env = { ...local, AI_REVIEW_BASE_URL: model.url, AI_REVIEW_URL: 'http://127.0.0.1:1' };
    firstCallAt = undefined;
    const started = Date.now();
    const run = await runCli(['review', '--local', '--format', 'json', '--fail-on', 'major'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(1);
    const review = JSON.parse(run.stdout) as { reviewRawJSON: { comments: Array<{ file: string; line: number; id: string }>; context: unknown } };
    expect(review.reviewRawJSON.comments).toEqual([expect.objectContaining({ file: 'src/price.ts', line: 4, id: expect.any(String) })]);
    expect(review.reviewRawJSON.context).toMatchObject({ scopes: 1, definitions: 1, snapshot: 'tarball' });
    expect(run.stderr).toContain('locally');

    const [call] = model.completions().slice(-1);
    expect(call!.body.model).toBe('local-model');
    const prompt = JSON.stringify(call!.body.messages);
    expect(prompt).toContain('VAT_RATE_MARKER');
    expect(prompt).toContain('-  return net + taxOf(net);');
    // From the command's start to its first model call: node, the sources, git, the context (machine-dependent; measured, not tuned to pass).
    const startupMs = firstCallAt! - started;
    console.info(`ai-review --local: ${startupMs} ms from spawn to the first model call`);
    expect(startupMs).toBeLessThan(10_000);
  });

  it('refuses without a model, or without the provider key and no base URL, in one line', async () => {
    const none = await runCli(['review', '--local'], { cwd: dir, env: {} });
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toMatch(/^ai-review: --local needs a model: set AI_REVIEW_MODEL to provider:model/);
    const keyless = await runCli(['review', '--local'], { cwd: dir, env: { AI_REVIEW_MODEL: 'anthropic:claude-x', ANTHROPIC_API_KEY: '' } });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr.trim()).toMatch(/^ai-review: --local with anthropic needs ANTHROPIC_API_KEY/);
  });
});
