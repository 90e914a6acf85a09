import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { updateUserBody } from '../../../../src/routes/users/users-schemas.js';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { Profile } from '../../api/types';
import { TextField } from '../../components/field';
import { ErrorAlert, Loading, Notice } from '../../components/status';
import { allowanceText, dateTime } from '../../lib/format';
import { fieldErrors } from '../../lib/validation';

export function ProfilePage() {
  const profile = useQuery(queries.profile());
  const usage = useQuery(queries.usage());
  return (
    <div className="stack-lg">
      <h1>Profile</h1>
      {profile.isPending ? <Loading /> : null}
      <ErrorAlert error={profile.error} />
      {profile.data ? <ProfileForm profile={profile.data} /> : null}
      <section className="card" aria-labelledby="usage-heading">
        <h2 id="usage-heading">Allowance used</h2>
        <ErrorAlert error={usage.error} />
        {usage.data ? <p className="allowance">{allowanceText(usage.data.utilizedCost, usage.data.allowedExpenditureLimit)}</p> : null}
      </section>
      {profile.data ? <DeleteAccount email={profile.data.email} /> : null}
    </div>
  );
}

function ProfileForm({ profile }: { profile: Profile }) {
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: (body: { name: string; email: string; emailNotification: boolean }) => api<Profile>('PATCH', '/users', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['profile'] }),
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const parsed = updateUserBody.safeParse({ name: form.get('name'), email: form.get('email'), emailNotification: form.get('emailNotification') === 'on' });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    save.mutate({ name: parsed.data.name!, email: parsed.data.email!, emailNotification: parsed.data.emailNotification! });
  };

  return (
    <form className="card stack" onSubmit={submit} noValidate>
      <p className="meta">
        Signed up {dateTime(profile.createdAt)} with {profile.loginMethod === 'codehost' ? 'GitHub' : 'email'}
        {profile.codehostUsername ? ` · GitHub @${profile.codehostUsername}` : ''}
      </p>
      <ErrorAlert error={save.error} />
      <TextField label="Name" name="name" defaultValue={profile.name} maxLength={56} required error={errors.name} />
      <TextField label="Email" name="email" type="email" defaultValue={profile.email} required error={errors.email} />
      <label className="checkbox">
        <input type="checkbox" name="emailNotification" defaultChecked={profile.emailNotification} />
        Email notifications
      </label>
      <p className="hint">An email when a review of yours completes.</p>
      <div className="row">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save
        </button>
        {save.isSuccess ? <Notice>Saved.</Notice> : null}
      </div>
    </form>
  );
}

function DeleteAccount({ email }: { email: string }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [asking, setAsking] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => api('DELETE', '/users'),
    onSuccess: async () => {
      queryClient.clear();
      await navigate({ to: '/login', search: { redirect: undefined } });
    },
  });

  return (
    <section className="card danger-zone stack" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete account</h2>
      <p>Deletes your account and everything in it: pull requests, reviews, conversations, keys and settings. This cannot be undone.</p>
      {!asking ? (
        <div>
          <button type="button" className="button button-danger" onClick={() => setAsking(true)}>
            Delete account
          </button>
        </div>
      ) : (
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            if (typed.trim().toLowerCase() === email.toLowerCase()) remove.mutate();
          }}
        >
          <ErrorAlert error={remove.error} />
          <TextField label="Type your email to confirm" value={typed} onChange={(event) => setTyped(event.target.value)} autoComplete="off" />
          <div className="row">
            <button type="submit" className="button button-danger" disabled={typed.trim().toLowerCase() !== email.toLowerCase() || remove.isPending}>
              Delete account
            </button>
            <button type="button" className="button" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
