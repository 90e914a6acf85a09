import { Agent, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { signUp } from '../lib/accounts.js';
import { withCleanup } from '../lib/cleanup.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';
import { percentile } from '../lib/stats.js';
import { spawnTsx } from '../lib/tsx-process.js';

const FIRST_TOKEN_DELAY_MS = 50;
/** How long the model's lines may trail the client's last sample. */
const MARKER_TIMEOUT_MS = 5_000;
const keepAlive = new Agent({ keepAlive: true });

/** The fake model in its own process; its time to first token per answer, by marker. */
async function startModel() {
  const firstTokens = new Map<string, number>();
  const model = await spawnTsx(fileURLToPath(new URL('../lib/fake-model-main.ts', import.meta.url)), [String(FIRST_TOKEN_DELAY_MS)], {
    onLine: (line) => {
      const { marker, firstTokenMs } = JSON.parse(line) as { marker: string; firstTokenMs: number };
      firstTokens.set(marker, firstTokenMs);
    },
  });
  return { ...model, firstTokens };
}

/**
 * Posts a chat and resolves with the time its first content line arrived, reading the stream as
 * it comes (node:http, not fetch: the client's own stream machinery is not the service's time).
 */
function firstContentLine(url: string, cookie: string, body: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    // What arrived before the first content line (it may be split across chunks); then nothing.
    let head = '';
    let first: number | undefined;
    const request = httpRequest(url, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, agent: keepAlive }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (first !== undefined) return;
        head += chunk;
        if (head.includes('"type":"content"')) {
          first = performance.now();
          head = '';
        }
      });
      response.on('end', () => resolve(first));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * What the service adds before the first word reaches the user: time to the first content line,
 * measured by the client, minus the model's own time to first token, measured by the model (in a
 * process of its own). 50 chats at once, each asking again as soon as its answer (about a second of
 * streaming, as a model answers) is done.
 */
export async function chatBench(backend: Backend, concurrency = 50, rounds = 8, warmUpRounds = 2) {
  const result = await chatFirstContent(backend, { concurrency, rounds, warmUpRounds });
  report(`chat first content [${backend}]`, {
    'added ms p50': result.p50,
    'added ms p99': result.p99,
    chats: result.chats,
    'without content': result.noContent,
    concurrency,
    'model ttft ms': FIRST_TOKEN_DELAY_MS,
  });
}

/** The measure of `chatBench`, on the service of `root`'s tree (this one by default). */
export async function chatFirstContent(backend: Backend, { concurrency, rounds, warmUpRounds, root }: { concurrency: number; rounds: number; warmUpRounds: number; root?: string }) {
  return withCleanup(async (defer) => {
    const model = await startModel();
    defer(() => model.stop());
    const service = await startService(
      backend,
      {
        PLATFORM_AI_BASE_URL: model.url,
        PLATFORM_MODELS: JSON.stringify([{ id: 'bench-chat', name: 'Bench', contextLength: 64_000, inputPrice: 0, outputPrice: 0 }]),
      },
      { root },
    );
    defer(() => service.cleanup());
    const cookies = await Promise.all(Array.from({ length: concurrency }, (_, index) => signUp(service.url, service.dataDir, `chat-${index}@example.com`)));
    const samples: Array<{ marker: string; client: number }> = [];
    let noContent = 0;
    await Promise.all(
      cookies.map(async (cookie, client) => {
        // Spread over the first second: 50 clients in lockstep would measure a thundering herd, not 50 chats.
        await sleep(Math.random() * 1_000);
        for (let round = 0; round < rounds; round++) {
          const marker = `${client}-${round}`;
          const started = performance.now();
          const firstContent = await firstContentLine(`${service.url}/conversation/chat`, cookie, JSON.stringify({ message: `Is this migration safe? [bench-${marker}]` }));
          // The first rounds warm the connections, the JIT and the service's caches up.
          if (firstContent === undefined) noContent++;
          else if (round >= warmUpRounds) samples.push({ marker, client: firstContent - started });
        }
      }),
    );

    // The model prints its line a moment after its first token; every sample must have one.
    const deadline = Date.now() + MARKER_TIMEOUT_MS;
    const missing = () => samples.filter((sample) => !model.firstTokens.has(sample.marker));
    while (missing().length > 0) {
      if (Date.now() > deadline) throw new Error(`the model reported no first token for ${missing().length} of ${samples.length} chats (e.g. ${missing()[0]!.marker})`);
      await sleep(10);
    }
    const added = samples.map((sample) => sample.client - model.firstTokens.get(sample.marker)!);
    return { p50: percentile(added, 50), p99: percentile(added, 99), chats: added.length, noContent };
  });
}
