import type { SessionItem } from '../api/types.js';

/** "Chrome on Linux" from the parsed user agent the API keeps. */
export function deviceName(userAgent: SessionItem['userAgent']): string {
  if (!userAgent) return 'Unknown device';
  const browser = userAgent.browser ?? 'Unknown browser';
  return userAgent.os ? `${browser} on ${userAgent.os}` : browser;
}
