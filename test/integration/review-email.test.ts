import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signInWithGitHub } from '../helpers/github-login.js';
import { SAMPLE_DIFF, scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

/** A real SMTP server that refuses the first `refusals` messages with a temporary error, then keeps what it receives. */
async function flakySmtpServer(refusals: number) {
  const received: string[] = [];
  let refused = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refused < refusals) {
          refused++;
          callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          return;
        }
        received.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, received, refusals: () => refused, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the completion email, sent by its own queue', () => {
  let world: ReviewWorld;
  let smtp: Awaited<ReturnType<typeof flakySmtpServer>>;
  beforeAll(async () => {
    smtp = await flakySmtpServer(1);
    world = await reviewWorld({ SMTP_URL: smtp.url });
    world.model.reply(scriptedReviewer());
  });
  afterAll(async () => {
    await world.close();
    await smtp.close();
  });

  it('a mail server that refuses at first leaves the review completed, and the email arrives on a retry', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { title: 'Mailed after a refusal' });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });

    await vi.waitFor(() => expect(smtp.received.some((raw) => raw.includes('Mailed after a refusal'))).toBe(true), { timeout: 10_000, interval: 50 });
    expect(smtp.refusals()).toBe(1);
    const email = smtp.received.find((raw) => raw.includes('Mailed after a refusal'))!;
    expect(email).toMatch(/^Subject: Review ready: Codertocat\/Hello-World#\d+ Mailed after a refusal$/m);
    expect(email).toContain(`/pulls/${payload.pull_request.id}`);
    // Sent once: the refused attempt left nothing behind, and the job is not in the failed set.
    expect(smtp.received.filter((raw) => raw.includes('Mailed after a refusal'))).toHaveLength(1);
    expect(await world.t.app.queue.failed('reviewEmail')).toEqual([]);
  });
});
