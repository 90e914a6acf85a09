import { CliError } from './cli-error.js';

export interface Identity {
  userId: string;
  name: string;
  email: string;
}

/**
 * The service's API with a personal token (decisions.md §17). Every failure becomes one line naming
 * the cause and what to do. `POST /review/diff` joins here when the service has it.
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

  private async get<T>(path: string): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, { headers: { authorization: `Bearer ${this.token}`, accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
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
      throw new CliError(`The service at ${this.url} answered ${response.status}${message ? `: ${message}` : ''}`);
    }
    return (await response.json()) as T;
  }
}
