/** A session's device as parsed from its User-Agent header (what the session list shows). */
export interface SessionUserAgent {
  browser: string | null;
  os: string | null;
  platform: string | null;
}
