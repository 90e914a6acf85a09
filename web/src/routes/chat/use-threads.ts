import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { queries } from '../../api/queries';
import { joinPages } from '../../lib/cursors';

/** The user's threads, page by page, and the pages joined into one list. */
export function useThreads() {
  const query = useInfiniteQuery(queries.threads());
  const items = useMemo(() => joinPages(query.data?.pages ?? [], (thread) => thread.id), [query.data]);
  return { query, items };
}
