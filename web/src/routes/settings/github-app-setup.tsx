import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { z } from 'zod';
import { manifestBody, type manifestResponse } from '../../../../src/routes/admin/admin-schemas.js';
import { api } from '../../api/client';
import { queries, type GitHubAppStatus } from '../../api/queries';
import { TextField } from '../../components/field';
import { ErrorAlert, Loading } from '../../components/status';
import { fieldErrors } from '../../lib/validation';

/**
 * The operator's part of /settings/github (decisions.md §13): create the GitHub App in one click
 * while none is configured, then what it is and where its credentials come from. Others see nothing.
 */
export function GithubAppSetup() {
  const status = useQuery(queries.githubAppStatus());
  if (status.isPending) return <Loading />;
  if (status.error) return <ErrorAlert error={status.error} />;
  if (status.data === null) return null;
  return (
    <section className="card stack" aria-labelledby="app-setup-heading">
      <h2 id="app-setup-heading">This service&apos;s GitHub App</h2>
      {status.data.configured ? <ConfiguredApp status={status.data} /> : <CreateApp />}
    </section>
  );
}

function ConfiguredApp({ status }: { status: GitHubAppStatus }) {
  return (
    <>
      <p>
        Reviews are posted as the GitHub App <strong>{status.slug}</strong>
        {status.owner ? ` of ${status.owner.login}` : ''}.
      </p>
      <p className="meta">
        {status.source === 'environment'
          ? 'Its credentials come from environment variables (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_APP_SLUG); they take precedence over an App created here.'
          : 'Its credentials were created here and are kept encrypted in the database.'}
      </p>
      {settingsUrl(status) ? (
        <div>
          <a className="button" href={settingsUrl(status)} target="_blank" rel="noreferrer">
            Open its settings on GitHub
          </a>
        </div>
      ) : null}
    </>
  );
}

function CreateApp() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const start = useMutation({
    mutationFn: (body: { organization?: string }) => api<z.infer<typeof manifestResponse>>('POST', '/admin/github-app/manifest', body),
    // GitHub's manifest flow: the browser posts the manifest to GitHub, which creates the App and comes back.
    onSuccess: ({ url, manifest }) => postToGitHub(url, JSON.stringify(manifest)),
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const field = new FormData(event.currentTarget).get('organization');
    const organization = typeof field === 'string' ? field.trim() : '';
    const parsed = manifestBody.safeParse(organization === '' ? {} : { organization });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    start.mutate(parsed.data);
  };

  return (
    <form className="stack" onSubmit={submit} noValidate>
      <p>
        No GitHub App is configured yet. Create it in one step: GitHub asks you to confirm, then the App is ready, with its permissions, events,
        webhook and keys set up for this service.
      </p>
      <ErrorAlert error={start.error} />
      <TextField label="Organization (optional)" name="organization" maxLength={39} hint="Leave empty to create the App on your personal account." error={errors.organization} />
      <div>
        <button type="submit" className="button button-primary" disabled={start.isPending || start.isSuccess}>
          Create the GitHub App
        </button>
      </div>
    </form>
  );
}

function postToGitHub(url: string, manifest: string) {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = url;
  const field = document.createElement('input');
  field.type = 'hidden';
  field.name = 'manifest';
  field.value = manifest;
  form.append(field);
  document.body.append(form);
  form.submit();
}

/** The App's settings page on GitHub: under the organization for an organization's App. */
function settingsUrl(status: GitHubAppStatus): string | undefined {
  if (status.htmlUrl === null || status.slug === null) return undefined;
  const github = status.htmlUrl.replace(/\/apps\/[^/]+$/, '');
  const slug = encodeURIComponent(status.slug);
  return status.owner?.type === 'Organization' ? `${github}/organizations/${encodeURIComponent(status.owner.login)}/settings/apps/${slug}` : `${github}/settings/apps/${slug}`;
}
