import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { CliError } from './cli-error.js';

export const DEFAULT_URL = 'http://localhost:3000';

const storedSchema = z.object({ url: z.string(), token: z.string() });
export type StoredLogin = z.infer<typeof storedSchema>;

/** Where you are signed in and with what: the file, overridden by AI_REVIEW_URL and AI_REVIEW_TOKEN. */
export interface Credentials {
  url: string;
  token: string | undefined;
}

/** `$XDG_CONFIG_HOME/ai-review/config.json`, else `~/.config/ai-review/config.json` (decisions.md §17). */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'ai-review', 'config.json');
}

export async function readStoredLogin(path: string): Promise<StoredLogin | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`Cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}): fix its permissions or run \`ai-review login\` again`);
  }
  const parsed = storedSchema.safeParse(safeJson(text));
  if (!parsed.success) throw new CliError(`${path} is not a valid ai-review configuration: run \`ai-review login\` again`);
  return parsed.data;
}

/** Written with mode 0600 (in a 0700 folder): the token is a credential. */
export async function writeStoredLogin(path: string, login: StoredLogin): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  // An existing file keeps its mode on write: set it again.
  await chmod(path, 0o600);
}

/** Whether there was a file to remove. */
export async function removeStoredLogin(path: string): Promise<boolean> {
  try {
    await rm(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

export async function resolveCredentials(env: NodeJS.ProcessEnv = process.env): Promise<Credentials> {
  const stored = await readStoredLogin(configPath(env));
  return { url: normalizeUrl(env.AI_REVIEW_URL?.trim() || stored?.url || DEFAULT_URL), token: env.AI_REVIEW_TOKEN?.trim() || stored?.token };
}

/** The service's base URL without a trailing slash; a clear error for anything but http(s). */
export function normalizeUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`"${value}" is not a URL: pass the service's address, e.g. --url https://reviews.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`"${value}" is not an http(s) URL: pass the service's address, e.g. --url https://reviews.example.com`);
  return url.href.replace(/\/+$/, '');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
