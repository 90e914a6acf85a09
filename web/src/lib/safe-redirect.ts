/**
 * Where to go after signing in: only a path of this origin ("/pulls/1?x=y"), never another site
 * ("//evil.example", "https://…", "/\\evil.example") and never the sign-in pages themselves.
 */
export function safeRedirect(target: unknown, fallback = '/'): string {
  if (typeof target !== 'string' || !target.startsWith('/') || target.startsWith('//') || target.includes('\\')) return fallback;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(target)) return fallback;
  let url: URL;
  try {
    url = new URL(target, 'http://app.invalid');
  } catch {
    return fallback;
  }
  if (url.origin !== 'http://app.invalid') return fallback;
  if (['/login', '/signup', '/forgot-password'].includes(url.pathname)) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
