import { UAParser } from 'ua-parser-js';
import type { SessionUserAgent } from '../domain/sessions.js';

/** `{browser, os, platform}` from a User-Agent header; platform is the device type, desktop by default. */
export function parseUserAgent(header: string | undefined): SessionUserAgent | null {
  if (!header) return null;
  const result = new UAParser(header).getResult();
  const browser = result.browser.name ? [result.browser.name, result.browser.major].filter(Boolean).join(' ') : null;
  const os = result.os.name ? [result.os.name, result.os.version].filter(Boolean).join(' ') : null;
  const platform = result.device.type ?? (os === null && browser === null ? null : 'desktop');
  return { browser, os, platform };
}
