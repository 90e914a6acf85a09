import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { createOrgBody } from '../../../../src/routes/orgs/orgs-schemas.js';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { Organization } from '../../api/types';
import { TextField } from '../../components/field';
import { ErrorAlert } from '../../components/status';
import { fieldErrors } from '../../lib/validation';

/** A team's space: you become its owner, then invite the others. */
export function NewOrgPage() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation({
    mutationFn: (input: unknown) => api<Organization>('POST', '/orgs', input),
    onSuccess: async (org) => {
      await queryClient.invalidateQueries({ queryKey: queries.orgs().queryKey });
      await navigate({ to: '/orgs/$orgId/settings/members', params: { orgId: org.id }, search: { org: org.id } });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = createOrgBody.safeParse({ name });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    create.mutate(parsed.data);
  };

  return (
    <div className="stack-lg narrow">
      <h1>New organization</h1>
      <p className="meta">An organization shares pull requests, review settings, keys and a monthly spend limit with its members. You will be its owner.</p>
      <form className="card stack" onSubmit={submit} noValidate>
        <ErrorAlert error={create.error} />
        <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} error={errors.name} maxLength={56} />
        <div className="row">
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            Create organization
          </button>
        </div>
      </form>
    </div>
  );
}
