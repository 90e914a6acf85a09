import { spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { signUp } from '../lib/accounts.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';

const FIRST_TOKEN_DELAY_MS = 50;
const keepAlive = new Agent({ keepAlive: true });

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;

/** The fake model in its own process; its time to first token per answer, by marker. */
async function startModel() {
  const main = fileURLToPath(new URL('../lib/fake-model-main.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', main, String(FIRST_TOKEN_DELAY_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const firstTokens = new Map<string, number>();
  const url = await new Promise<string>((resolve) => {
    lines.on('line', (line) => {
      if (line.startsWith('http')) return resolve(line.trim());
      const { marker, firstTokenMs } = JSON.parse(line) as { marker: string; firstTokenMs: number };
      firstTokens.set(marker, firstTokenMs);
    });
  });
  return { url, firstTokens, stop: () => child.kill('SIGTERM') };
}

/**
 * Posts a chat and resolves with the time its first content line arrived, reading the stream as
 * it comes (node:http, not fetch: the client's own stream machinery is not the service's time).
 */
function firstContentLine(url: string, cookie: string, body: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let first: number | undefined;
    const request = httpRequest(url, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, agent: keepAlive }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        if (first === undefined && buffer.includes('"type":"content"')) first = performance.now();
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
  const model = await startModel();
  const service = await startService(backend, {
    PLATFORM_AI_BASE_URL: model.url,
    PLATFORM_MODELS: JSON.stringify([{ id: 'bench-chat', name: 'Bench', contextLength: 64_000, inputPrice: 0, outputPrice: 0 }]),
  });
  try {
    const cookies = await Promise.all(Array.from({ length: concurrency }, (_, index) => signUp(service.url, service.dataDir, `chat-${index}@example.com`)));
    const samples: Array<{ marker: string; client: number }> = [];
    await Promise.all(
      cookies.map(async (cookie, client) => {
        // Spread over the first second: 50 clients in lockstep would measure a thundering herd, not 50 chats.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 1_000));
        for (let round = 0; round < rounds; round++) {
          const marker = `${client}-${round}`;
          const started = performance.now();
          const firstContent = await firstContentLine(`${service.url}/conversation/chat`, cookie, JSON.stringify({ message: `Is this migration safe? [bench-${marker}]` }));
          // The first rounds warm the connections, the JIT and the service's caches up.
          if (round >= warmUpRounds && firstContent !== undefined) samples.push({ marker, client: firstContent - started });
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const added = samples.filter((sample) => model.firstTokens.has(sample.marker)).map((sample) => sample.client - model.firstTokens.get(sample.marker)!);
    report(`chat first content [${backend}]`, {
      'added ms p50': percentile(added, 50),
      'added ms p99': percentile(added, 99),
      chats: added.length,
      concurrency,
      'model ttft ms': FIRST_TOKEN_DELAY_MS,
    });
  } finally {
    await service.cleanup();
    model.stop();
  }
}
