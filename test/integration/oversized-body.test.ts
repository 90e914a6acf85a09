import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERSIZED_BODY_DRAIN } from '../../src/plugins/app/error-handler.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

interface Outcome {
  status?: number;
  body?: string;
  error?: string;
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');

/**
 * A client that writes its whole body before it reads the answer, as many HTTP clients do (and as a
 * busy browser or process does in effect): the socket is paused while it writes, so an answer that
 * came early waits in the kernel. A server that then closes with unread data makes TCP reset the
 * connection, and the waiting answer is lost: the client sees ECONNRESET (or EPIPE) instead of it.
 */
function sendOversized(base: string, path: string, bytes: number, { chunked = false } = {}): Promise<Outcome> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.pause();
    let received = '';
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(outcome);
    };
    const readAnswer = () => {
      socket.on('data', (part: Buffer) => (received += part.toString('latin1')));
      socket.on('end', () => {
        const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
        finish(status === undefined ? { error: 'no answer' } : { status: Number(status), body: received.slice(received.indexOf('\r\n\r\n') + 4) });
      });
      socket.resume();
    };
    socket.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message }));
    const head = [`POST ${path} HTTP/1.1`, `host: ${hostname}:${port}`, 'content-type: application/json', 'connection: close', chunked ? 'transfer-encoding: chunked' : `content-length: ${bytes}`];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    let sent = 0;
    const write = (): void => {
      while (!settled && sent < bytes) {
        const part = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - sent));
        sent += part.length;
        const more = socket.write(chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part);
        if (!more) return void socket.once('drain', write);
      }
      if (settled) return;
      if (chunked) socket.write('0\r\n\r\n');
      readAnswer();
    };
    write();
  });
}

describe('a body over the limit gets its 413, not a reset', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ role: 'api' });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('200 of 200 clients that keep sending 8 MB to a 1 MB endpoint read the 413', async () => {
    const outcomes: Outcome[] = [];
    for (let attempt = 0; attempt < 200; attempt++) outcomes.push(await sendOversized(base, '/auth/login', 8 * 1024 * 1024));
    const statuses = outcomes.map((outcome) => outcome.status ?? outcome.error);
    expect(statuses.filter((status) => status === 413)).toHaveLength(200);
    expect(JSON.parse(outcomes[0]!.body!.trim())).toEqual({ statusCode: 413, error: 'Payload Too Large', message: 'Request body is too large' });
  });

  it('a chunked body without a length, and a webhook just over its 25 MB limit, read their 413 too', async () => {
    for (let attempt = 0; attempt < 50; attempt++) expect((await sendOversized(base, '/auth/login', 2 * 1024 * 1024, { chunked: true })).status).toBe(413);
    for (let attempt = 0; attempt < 3; attempt++) expect((await sendOversized(base, '/webhook', 26 * 1024 * 1024)).status).toBe(413);
  });

  it('beyond the bound the connection is closed at once, as before, and the server serves the next request', async () => {
    const started = Date.now();
    const outcome = await sendOversized(base, '/auth/login', OVERSIZED_BODY_DRAIN.maxBytes + 1024 * 1024);
    expect(outcome.status === 413 || outcome.error !== undefined).toBe(true);
    expect(Date.now() - started).toBeLessThan(OVERSIZED_BODY_DRAIN.timeoutMs);
    expect((await t.app.inject({ method: 'GET', url: '/webhook' })).statusCode).toBe(200);
  });
});
