import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  /** Base URL when the process listens (API roles). */
  url: string | undefined;
  pid: number;
  output: () => string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  timeoutMs?: number;
  /**
   * Write the server's log to this file instead of a pipe. Under load a pipe read by a busy parent
   * fills up, and pino's synchronous writes then stall the server.
   */
  logFile?: string;
  /** Node flags before the entry point (a bench's `--cpu-prof`, which NODE_OPTIONS may not carry). */
  nodeArgs?: string[];
  /** The source tree to run (`npm run bench:compare` runs an older revision's); this one by default. */
  root?: string;
}

function launch(env: Record<string, string>, { logFile, nodeArgs = [], root = ROOT }: StartOptions) {
  const fd = logFile === undefined ? undefined : openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', fd ?? 'pipe', fd ?? 'pipe'],
  });
  if (fd !== undefined) closeSync(fd);
  // Only the tail is kept: a server under load writes a log line per request.
  let piped = '';
  const collect = (chunk: Buffer) => (piped = (piped + chunk.toString()).slice(-65_536));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const output = () => (logFile === undefined ? piped : readFileSync(logFile, 'utf8').slice(-65_536));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** Runs `src/server.ts` as `npm start` does, and waits for its "ready" log line. */
export async function startServer(env: Record<string, string>, options: StartOptions = {}): Promise<ServerProcess> {
  const { child, output, exited } = launch(env, options);
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  // A cold start opens PGlite and applies every migration: over 30 s was seen on the 2-core CI
  // machine while two other test files and Chromium ran beside it.
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (!/"msg":"ready"/.test(output())) {
    if (exitCode !== undefined) throw new Error(`server exited with ${exitCode}:\n${output()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready in time:\n${output()}`);
    }
    await sleep(25);
  }
  return {
    url: /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1],
    pid: child.pid!,
    output,
    stop: (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}

/** Runs the server expecting it to refuse to start; resolves with its exit code and output. */
export async function failedStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const { output, exited } = launch(env, {});
  const code = await exited;
  return { code, output: output() };
}
