/** The cursor of the page after `page`, or undefined when `page` was the last (shorter than a full page). */
export function nextCursor<T>(page: readonly T[], pageSize: number, cursorOf: (item: T) => string): string | undefined {
  if (page.length < pageSize) return undefined;
  const last = page[page.length - 1];
  return last === undefined ? undefined : cursorOf(last);
}

/**
 * Pages joined without repeats: with an inclusive cursor the last item of a page is the first of
 * the next (and items updated at the same millisecond may repeat), so items are kept by key once.
 */
export function joinPages<T>(pages: ReadonlyArray<readonly T[]>, keyOf: (item: T) => string | number): T[] {
  const seen = new Set<string | number>();
  const items: T[] = [];
  for (const page of pages) {
    for (const item of page) {
      const key = keyOf(item);
      if (seen.has(key)) continue;
      seen.add(key);
      items.push(item);
    }
  }
  return items;
}
