/** The one way the app talks to the API: same origin, the session cookie, JSON errors as ApiError. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Array<{ path: string; message: string }>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined | null | string[]>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) value.forEach((item) => params.append(key, item));
    else params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function errorOf(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as { message?: string; details?: ApiError['details'] } | null;
  return new ApiError(response.status, body?.message ?? `${response.status} ${response.statusText}`, body?.details);
}

/** A raw request; throws ApiError on any non-2xx answer. */
export async function request(method: string, path: string, body?: unknown, init?: RequestInit): Promise<Response> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    ...init,
  });
  if (!response.ok) throw await errorOf(response);
  return response;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await request(method, path, body);
  if (response.status === 204 || response.headers.get('content-length') === '0') return undefined as T;
  return (await response.json()) as T;
}

export const get = <T>(path: string, query?: Query) => api<T>('GET', withQuery(path, query));

export async function getText(path: string): Promise<string> {
  return (await request('GET', path, undefined, { headers: { accept: 'text/plain' } })).text();
}

/** A readable message for any failure, for a role="alert" element. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong';
}
