import type { z } from 'zod';
import { CatalogError } from './catalog-error.js';

/** What the requests of one probe share: where, as whom, and one deadline for all of them. */
export interface Probe {
  baseUrl: string;
  apiKey: string;
  /** The provider as messages name it, at the start of a sentence. */
  label: string;
  signal: AbortSignal;
  timeoutMs: number;
  fetch: typeof fetch;
}

export interface JsonGet<S extends z.ZodType> {
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  schema: S;
  /** For providers that refuse a key with a status other than 401 and 403 (Google: 400). */
  rejectsKey?: (status: number, body: unknown) => boolean;
}

const USER_AGENT = 'pr-review-service';
// OpenRouter's whole catalog is a few MB. A custom base URL is the user's choice, so a body that
// never ends must not be held in memory until the deadline.
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** GETs one JSON document and validates it; every failure becomes a CatalogError. */
export async function getJson<S extends z.ZodType>(probe: Probe, request: JsonGet<S>): Promise<z.output<S>> {
  let url: URL;
  try {
    url = new URL(`${probe.baseUrl}${request.path}`);
  } catch {
    throw new CatalogError('unreachable', `${probe.label} has no valid base URL`);
  }
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);

  let response: Response;
  try {
    response = await probe.fetch(url, {
      headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...request.headers },
      // Followed redirects would carry x-api-key and x-goog-api-key to whatever host is named
      // (fetch drops only `authorization` across origins), so a redirect is reported instead.
      redirect: 'manual',
      signal: probe.signal,
    });
  } catch (error) {
    throw unreachable(probe, error);
  }
  const text = await readBody(probe, response);
  if (!response.ok) throw statusError(probe, request, response.status, text);

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CatalogError('bad-response', `${probe.label} answered ${request.path} with something other than JSON`);
  }
  const parsed = request.schema.safeParse(json);
  if (!parsed.success) {
    // Paths and expectations only: zod's messages name what was expected, never the values received.
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'the body' : issue.path.join('.');
    throw new CatalogError('bad-response', `${probe.label} answered ${request.path} with an unexpected shape (${where}: ${issue?.message ?? 'invalid'})`);
  }
  return parsed.data;
}

async function readBody(probe: Probe, response: Response): Promise<string> {
  const tooLarge = () => new CatalogError('bad-response', `${probe.label} sent more than ${MAX_BODY_BYTES / 1024 / 1024} MB for a model list`);
  if (Number(response.headers.get('content-length')) > MAX_BODY_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (response.body === null) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    if (error instanceof CatalogError) throw error;
    // The deadline passed or the connection dropped mid-body.
    throw unreachable(probe, error);
  }
}

function statusError(probe: Probe, request: JsonGet<z.ZodType>, status: number, text: string): CatalogError {
  if (status === 401 || status === 403 || request.rejectsKey?.(status, parseLeniently(text)) === true) {
    return new CatalogError('rejected', `${probe.label} rejected the API key (HTTP ${status})`, status);
  }
  if (status >= 300 && status < 400) {
    return new CatalogError('bad-response', `${probe.label} redirected ${request.path} elsewhere (HTTP ${status}); use the final address as the base URL`, status);
  }
  if (status === 404) {
    return new CatalogError('bad-response', `${probe.label} has no ${request.path} under this base URL (HTTP 404)`, status);
  }
  return new CatalogError('bad-response', `${probe.label} answered ${request.path} with HTTP ${status}`, status);
}

function unreachable(probe: Probe, error: unknown): CatalogError {
  if (probe.signal.aborted) return new CatalogError('unreachable', `${probe.label} did not answer within ${probe.timeoutMs} ms`);
  const code = networkCode(error);
  return new CatalogError('unreachable', `${probe.label} could not be reached${code === undefined ? '' : ` (${code})`}`);
}

/**
 * The system error code (ECONNREFUSED, ENOTFOUND, …) from fetch's cause chain. Only the code is
 * kept: undici's own messages can quote request headers, and so the key.
 */
function networkCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) return code;
  }
  return undefined;
}

function parseLeniently(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
