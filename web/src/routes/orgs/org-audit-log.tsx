import { useInfiniteQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { queries } from '../../api/queries';
import { Empty, ErrorAlert, Loading } from '../../components/status';
import { dateTime } from '../../lib/format';

const route = getRouteApi('/signed-in/orgs/$orgId/settings/audit-log');

/** Who changed what, newest first (admins and owners). */
export function OrgAuditLogPage() {
  const { orgId } = route.useParams();
  const audit = useInfiniteQuery(queries.orgAudit(orgId));
  const items = audit.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section className="stack" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      {audit.isPending ? <Loading /> : null}
      <ErrorAlert error={audit.error} />
      {audit.isSuccess && items.length === 0 ? <Empty title="Nothing recorded yet" /> : null}
      {items.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item, index) => (
              <tr key={`${item.at}-${index}`}>
                <td>{dateTime(item.at)}</td>
                <td>{item.actor.name || 'A deleted account'}</td>
                <td>
                  <code>{item.action}</code>
                </td>
                <td>{item.target}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {audit.hasNextPage ? (
        <button type="button" className="button" onClick={() => void audit.fetchNextPage()} disabled={audit.isFetchingNextPage}>
          Load more
        </button>
      ) : null}
    </section>
  );
}
