import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface TsxProcess {
  url: string;
  pid: number;
  /** SIGTERM, resolved once the process has exited. */
  stop(): Promise<void>;
}

export interface SpawnTsxOptions {
  /** Every stdout line but the URL, as it arrives. */
  onLine?: (line: string) => void;
  /** How long the process may take to print its URL. */
  timeoutMs?: number;
}

/**
 * Runs a TypeScript file as its own process (`node --import tsx <main> [args]`) and resolves with
 * the first `http(s)://` line it prints on stdout. Rejects, and kills the process, if it exits,
 * fails to spawn or prints no URL in time; its stderr goes to ours.
 */
export function spawnTsx(main: string, args: string[] = [], { onLine, timeoutMs = 30_000 }: SpawnTsxOptions = {}): Promise<TsxProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise<TsxProcess>((resolve, reject) => {
    let url: string | undefined;
    const fail = (error: Error) => {
      if (url !== undefined) return;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`${main} printed no URL in ${timeoutMs} ms`)), timeoutMs);
    child.on('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`${main} exited (${signal ?? code}) before printing its URL`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (url === undefined && /^https?:\/\//.test(line)) {
        url = line.trim();
        clearTimeout(timer);
        resolve({ url, pid: child.pid!, stop });
      } else {
        onLine?.(line);
      }
    });
  });
}
