import { CliError } from './cli-error.js';
import type { DiffReviewResult } from './formats.js';

export interface DiffReviewRequest {
  diff: string;
  mode?: string;
  repository?: string;
  title?: string;
  files?: Array<{ path: string; content: string }>;
  config?: string;
}

export interface DiffReviewState {
  reviewId: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  error?: string;
  review?: DiffReviewResult;
}

export type DiffReviewEvent = { type: 'progress'; done: number; total: number } | { type: 'completed'; review: DiffReviewResult } | { type: 'failed'; error: string };

export interface Identity {
  userId: string;
  name: string;
  email: string;
}

/**
 * The service's API with a personal token (decisions.md §17). Every failure becomes one line naming
 * the cause and what to do.
 */
export class ServiceClient {
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  /** Who the token acts for: checks it (`GET /auth/session`), then reads the profile. */
  async identity(): Promise<Identity> {
    const { userId } = await this.get<{ userId: string }>('/auth/session');
    const { name, email } = await this.get<{ name: string; email: string }>('/users');
    return { userId, name, email };
  }

  /** Sends a diff for review (`POST /review/diff`): its id. */
  async reviewDiff(body: DiffReviewRequest): Promise<string> {
    const { reviewId } = await this.call<{ reviewId: string }>('/review/diff', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }, 120_000);
    return reviewId;
  }

  reviewState(reviewId: string): Promise<DiffReviewState> {
    return this.get<DiffReviewState>(`/review/diff/${reviewId}`);
  }

  /** The review's NDJSON events, one object per line as they come (decisions.md §17). */
  async *reviewEvents(reviewId: string): AsyncGenerator<DiffReviewEvent> {
    const response = await this.fetch(`/review/diff/${reviewId}/events`, { headers: { accept: 'application/x-ndjson' } }, 60 * 60_000);
    if (!response.body) return;
    const decoder = new TextDecoder();
    let pending = '';
    for await (const bytes of response.body as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(bytes, { stream: true });
      let end: number;
      while ((end = pending.indexOf('\n')) !== -1) {
        const line = pending.slice(0, end).trim();
        pending = pending.slice(end + 1);
        if (line !== '') yield JSON.parse(line) as DiffReviewEvent;
      }
    }
    if (pending.trim() !== '') yield JSON.parse(pending) as DiffReviewEvent;
  }

  private get<T>(path: string): Promise<T> {
    return this.call<T>(path, {}, 30_000);
  }

  private async call<T>(path: string, init: RequestInit, timeoutMs: number): Promise<T> {
    return (await (await this.fetch(path, init, timeoutMs)).json()) as T;
  }

  /** A request with the token; every failure as one line naming the cause and what to do. */
  private async fetch(path: string, init: RequestInit, timeoutMs: number): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, { ...init, headers: { authorization: `Bearer ${this.token}`, accept: 'application/json', ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      const { cause } = error as { cause?: { code?: string; message?: string } };
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new CliError(`Cannot reach the service at ${this.url} (${reason}): check the URL (--url or AI_REVIEW_URL) and that the service is running`);
    }
    if (response.status === 401) {
      throw new CliError(`The service refused the token (unknown, revoked or expired): create one at ${this.url}/settings/tokens and run \`ai-review login\``);
    }
    if (!response.ok) {
      const message = await response
        .json()
        .then((body: unknown) => (body as { message?: string }).message)
        .catch(() => undefined);
      if (response.status === 413) throw new CliError(`The change is too large for the service (${message ?? '413'}): review a smaller range (--base, --staged)`);
      throw new CliError(`The service at ${this.url} answered ${response.status}${message ? `: ${message}` : ''}`);
    }
    return response;
  }
}
