import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { Organization } from '../../api/types';
import { TextField } from '../../components/field';
import { ErrorAlert, Loading, Notice } from '../../components/status';
import { canManage } from './org-settings-layout';

const route = getRouteApi('/signed-in/orgs/$orgId/settings/spend-limit');

const limitText = (limit: number | null) => (limit === null ? 'No limit' : `$${limit < 0.01 && limit > 0 ? String(limit) : limit.toFixed(2)} a month`);

/** The monthly spend limit (USD, UTC months); empty means none. Enforcement on reviews comes with organization-owned pull requests. */
export function OrgSpendLimitPage() {
  const { orgId } = route.useParams();
  const org = useQuery(queries.org(orgId));
  if (org.isPending) return <Loading />;
  if (org.error) return <ErrorAlert error={org.error} />;
  return (
    <section className="stack" aria-labelledby="limit-heading">
      <h2 id="limit-heading">Spend limit</h2>
      <p>
        Current limit: <strong>{limitText(org.data.monthlySpendLimitUsd)}</strong>
      </p>
      {canManage(org.data) ? <LimitForm org={org.data} /> : <p className="meta">Only owners and admins change the limit.</p>}
    </section>
  );
}

function LimitForm({ org }: { org: Organization }) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState(org.monthlySpendLimitUsd === null ? '' : String(org.monthlySpendLimitUsd));
  const [error, setError] = useState<string>();
  const save = useMutation({
    mutationFn: (limit: number | null) => api<Organization>('PATCH', `/orgs/${org.id}`, { monthlySpendLimitUsd: limit }),
    onSuccess: (updated) => queryClient.setQueryData(queries.org(org.id).queryKey, updated),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = value.trim();
    const limit = text === '' ? null : Number(text);
    if (limit !== null && (!Number.isFinite(limit) || limit < 0)) {
      setError('must be a number of dollars, 0 or more');
      return;
    }
    setError(undefined);
    save.mutate(limit);
  };
  return (
    <form className="card stack" onSubmit={submit} noValidate>
      <ErrorAlert error={save.error} />
      <TextField label="Monthly limit (USD)" inputMode="decimal" value={value} onChange={(event) => setValue(event.target.value)} hint="Leave empty for no limit" error={error} />
      <div className="row">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save
        </button>
        {save.isSuccess ? <Notice>Saved.</Notice> : null}
      </div>
    </form>
  );
}
