import { Link } from '@tanstack/react-router';
import { ErrorAlert, Loading } from '../../components/status';
import { ago } from '../../lib/format';
import type { useThreads } from './use-threads';

/** The user's threads, newest first, with "New chat" and "Load more". */
export function ThreadList({ threads: { query: threads, items } }: { threads: ReturnType<typeof useThreads> }) {
  return (
    <aside className="chat-threads" aria-labelledby="threads-heading">
      <div className="chat-threads-header">
        <h2 id="threads-heading">Threads</h2>
        <Link to="/chat" search={{ prId: undefined }} className="button button-small">
          New chat
        </Link>
      </div>
      {threads.isPending ? <Loading /> : null}
      <ErrorAlert error={threads.error} />
      {threads.data && items.length === 0 ? <p className="meta">No conversations yet.</p> : null}
      <ul className="thread-list">
        {items.map((thread) => (
          <li key={thread.id}>
            <Link to="/chat/$id" params={{ id: thread.id }} search={{ prId: undefined }} activeProps={{ className: 'active', 'aria-current': 'page' }}>
              <span className="thread-title">{thread.title}</span>
              <span className="meta">{ago(thread.updatedAt)}</span>
            </Link>
          </li>
        ))}
      </ul>
      {threads.hasNextPage ? (
        <button type="button" className="button button-small" onClick={() => void threads.fetchNextPage()} disabled={threads.isFetchingNextPage}>
          Load more
        </button>
      ) : null}
    </aside>
  );
}
