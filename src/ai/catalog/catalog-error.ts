/**
 * - `rejected`: the provider refused the key (the user's mistake: a 400 for them).
 * - `unreachable`: no answer in time or no connection (nobody's mistake, try later).
 * - `bad-response`: an answer that is not a model list (a wrong base URL, an outage, a gateway bug).
 */
export type CatalogErrorKind = 'rejected' | 'unreachable' | 'bad-response';

/**
 * Why a model list could not be had. Messages are written here, never copied from the provider or
 * from the HTTP stack: both can echo the key (OpenAI masks part of it, undici quotes a bad header
 * whole), and these messages end up in responses and logs.
 */
export class CatalogError extends Error {
  override name = 'CatalogError';

  constructor(
    readonly kind: CatalogErrorKind,
    message: string,
    /** The provider's HTTP status, when it answered with one. */
    readonly status?: number,
  ) {
    super(message);
  }
}
