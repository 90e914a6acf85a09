import { CatalogError } from './catalog-error.js';
import type { Probe } from './catalog-http.js';

export interface Page<T> {
  items: T[];
  /** The cursor of the next page; undefined on the last one. */
  next: string | undefined;
}

// 1,000 models a page, so 20 pages is 20,000 models: far past any real catalog.
const MAX_PAGES = 20;

/**
 * Follows cursors until the last page. A cursor that does not move, or pages without end, would
 * otherwise spin until the deadline; both are reported as the provider's fault.
 */
export async function collectPages<T>(probe: Probe, fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const result = await fetchPage(cursor);
    items.push(...result.items);
    if (result.next === undefined) return items;
    if (seen.has(result.next)) throw new CatalogError('bad-response', `${probe.label} repeated a page cursor while listing models`);
    seen.add(result.next);
    cursor = result.next;
  }
  throw new CatalogError('bad-response', `${probe.label} listed more than ${MAX_PAGES} pages of models`);
}
