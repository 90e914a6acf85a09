/**
 * decisions.md §7: characters PostgreSQL refuses in text. NUL (not allowed in `text` or `jsonb`)
 * and UTF-16 surrogates that are not part of a pair (not encodable as UTF-8).
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this finds
const REFUSED = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const REFUSED_ALL = new RegExp(REFUSED.source, 'g');

export const REFUSED_CHARACTERS_MESSAGE = 'must not contain NUL or unpaired surrogate characters';

export const hasRefusedCharacters = (value: string): boolean => REFUSED.test(value);

/** Data we must keep (GitHub payloads): the refused characters become U+FFFD. */
export const replaceRefusedCharacters = (value: string): string => (REFUSED.test(value) ? value.replace(REFUSED_ALL, '\ufffd') : value);

interface Visit {
  value: unknown;
  key: string | undefined;
  parent: Visit | undefined;
}

const pathOf = (visit: Visit): string => {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) keys.push(replaceRefusedCharacters(at.key));
  return keys.reverse().join('.');
};

/**
 * The path (`name`, `items.2.title`) of the first string, or object key, in `value` that holds a
 * refused character; undefined when there is none. Iterative and without copied paths, so deep
 * nesting costs neither stack nor quadratic memory.
 */
export function findRefusedString(value: unknown): string | undefined {
  const stack: Visit[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current === 'string') {
      if (hasRefusedCharacters(current)) return pathOf(visit);
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) stack.push({ value: current[index], key: String(index), parent: visit });
    } else if (current !== null && typeof current === 'object') {
      for (const key of Object.keys(current).reverse()) {
        const child: Visit = { value: (current as Record<string, unknown>)[key], key, parent: visit };
        if (hasRefusedCharacters(key)) return pathOf(child);
        stack.push(child);
      }
    }
  }
  return undefined;
}
