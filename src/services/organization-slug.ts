const MAX_BASE = 48;

/**
 * A URL-safe handle from a name: accents dropped, lowercase ASCII letters and digits, runs of
 * anything else as one `-`, at most 48 characters; `org` when nothing is left ("日本" → "org").
 */
export function slugBase(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_BASE)
    .replace(/^-+|-+$/g, '');
  return base === '' ? 'org' : base;
}

/** The base itself when free, else `base-2`, `base-3`…: the first number no taken slug uses. */
export function freeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}
