import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { connectBody, DEFAULT_GITLAB_URL } from '../../../../src/code-hosts/gitlab/gitlab-api-schemas.js';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { GitLabConnection } from '../../api/types';
import { ConfirmAction } from '../../components/confirm-action';
import { TextField } from '../../components/field';
import { Empty, ErrorAlert, Loading, Notice } from '../../components/status';
import { dateTime } from '../../lib/format';
import { fieldErrors } from '../../lib/validation';

/** GitLab projects connected with an access token; the service creates each project's webhook (decisions.md §12). */
export function GitlabPage() {
  const connections = useQuery(queries.gitlabConnections());
  return (
    <div className="stack-lg">
      <h1>GitLab</h1>
      <p className="meta">
        Connect a project on gitlab.com or on your own GitLab with an access token (scope <code>api</code>, Maintainer access). The service creates the project&apos;s webhook itself; the
        token is stored encrypted and never shown again.
      </p>
      <ConnectProject />
      <section className="stack" aria-labelledby="connections-heading">
        <h2 id="connections-heading">Connected projects</h2>
        {connections.isPending ? <Loading /> : null}
        <ErrorAlert error={connections.error} />
        {connections.data?.length === 0 ? <Empty title="No GitLab projects connected yet" /> : null}
        <ul className="provider-list">
          {connections.data?.map((connection) => (
            <ConnectionRow key={connection.id} connection={connection} />
          ))}
        </ul>
      </section>
    </div>
  );
}

function ConnectProject() {
  const queryClient = useQueryClient();
  const [baseUrl, setBaseUrl] = useState('');
  const [project, setProject] = useState('');
  const [token, setToken] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const connect = useMutation({
    mutationFn: (input: unknown) => api<GitLabConnection>('POST', '/gitlab/connections', input),
    onSuccess: async () => {
      setProject('');
      setToken('');
      await queryClient.invalidateQueries({ queryKey: queries.gitlabConnections().queryKey });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = connectBody.safeParse({ baseUrl: baseUrl.trim() || undefined, project, token });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    connect.mutate(parsed.data);
  };

  return (
    <form className="card stack" onSubmit={submit} noValidate aria-labelledby="connect-heading">
      <h2 id="connect-heading">Connect a project</h2>
      <ErrorAlert error={connect.error} />
      <div className="grid-2">
        <TextField label="GitLab URL" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} placeholder={DEFAULT_GITLAB_URL} hint="Leave empty for gitlab.com" error={errors.baseUrl} />
        <TextField label="Project" value={project} onChange={(event) => setProject(event.target.value)} placeholder="group/project or its numeric id" error={errors.project} />
      </div>
      <TextField label="Access token" type="password" autoComplete="off" value={token} onChange={(event) => setToken(event.target.value)} hint="A project, group or personal access token with the api scope" error={errors.token} />
      <div className="row">
        <button type="submit" className="button button-primary" disabled={connect.isPending}>
          Connect project
        </button>
        {connect.isSuccess ? <Notice>Connected {connect.data.project.pathWithNamespace}.</Notice> : null}
      </div>
    </form>
  );
}

function ConnectionRow({ connection }: { connection: GitLabConnection }) {
  const queryClient = useQueryClient();
  const disconnect = useMutation({
    mutationFn: () => api('DELETE', `/gitlab/connections/${connection.id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queries.gitlabConnections().queryKey }),
  });
  const name = connection.project.pathWithNamespace;

  return (
    <li className="card provider-row" aria-label={name}>
      <div className="provider-main">
        <p className="item-title">
          <a href={connection.project.webUrl} target="_blank" rel="noreferrer">
            {name}
          </a>{' '}
          {connection.status === 'active' ? <span className="badge badge-status-completed">active</span> : <span className="badge badge-status-failed">broken</span>}
        </p>
        <p className="meta">
          {connection.baseUrl} · connected {dateTime(connection.createdAt)}
        </p>
        {connection.status === 'broken' ? <p className="field-error">GitLab refused the token: {connection.reason}. Disconnect and connect again with a new token.</p> : null}
        <ErrorAlert error={disconnect.error} />
      </div>
      <ConfirmAction label="Disconnect" question={`Disconnect ${name}? Its webhook is removed.`} onConfirm={() => disconnect.mutate()} pending={disconnect.isPending} />
    </li>
  );
}
