import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { connectBody } from '../../../../src/code-hosts/bitbucket/bitbucket-api-schemas.js';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { BitbucketConnection } from '../../api/types';
import { ConfirmAction } from '../../components/confirm-action';
import { TextField } from '../../components/field';
import { Empty, ErrorAlert, Loading, Notice } from '../../components/status';
import { dateTime } from '../../lib/format';
import { fieldErrors } from '../../lib/validation';

/** Bitbucket Cloud repositories connected with a token; the service creates each repository's webhook (decisions.md §16). */
export function BitbucketPage() {
  const connections = useQuery(queries.bitbucketConnections());
  return (
    <div className="stack-lg">
      <h1>Bitbucket</h1>
      <p className="meta">
        Connect a repository on Bitbucket Cloud with a repository, project or workspace access token (scopes Pull requests Read and Webhooks), or with a repository admin&apos;s
        Atlassian API token and its account email. The service creates the repository&apos;s webhook itself; the token is stored encrypted and never shown again.
      </p>
      <p className="meta">
        Reviews work with either. Commands in comments (<code>/review</code>, <code>/ask</code>, <code>/help</code>, and replies <code>/wrong</code>, <code>/wontfix</code>,{' '}
        <code>/helpful</code>) only with an admin&apos;s API token: access tokens cannot read the repository&apos;s permissions, so the service could not check who may give them.
      </p>
      <ConnectRepository />
      <section className="stack" aria-labelledby="connections-heading">
        <h2 id="connections-heading">Connected repositories</h2>
        {connections.isPending ? <Loading /> : null}
        <ErrorAlert error={connections.error} />
        {connections.data?.length === 0 ? <Empty title="No Bitbucket repositories connected yet" /> : null}
        <ul className="provider-list">
          {connections.data?.map((connection) => (
            <ConnectionRow key={connection.id} connection={connection} />
          ))}
        </ul>
      </section>
    </div>
  );
}

function ConnectRepository() {
  const queryClient = useQueryClient();
  const [workspace, setWorkspace] = useState('');
  const [repoSlug, setRepoSlug] = useState('');
  const [token, setToken] = useState('');
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const connect = useMutation({
    mutationFn: (input: unknown) => api<BitbucketConnection>('POST', '/bitbucket/connections', input),
    onSuccess: async () => {
      setRepoSlug('');
      setToken('');
      setEmail('');
      await queryClient.invalidateQueries({ queryKey: queries.bitbucketConnections().queryKey });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = connectBody.safeParse({ workspace, repoSlug, token, email: email.trim() || undefined });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    connect.mutate(parsed.data);
  };

  return (
    <form className="card stack" onSubmit={submit} noValidate aria-labelledby="connect-heading">
      <h2 id="connect-heading">Connect a repository</h2>
      <ErrorAlert error={connect.error} />
      <div className="grid-2">
        <TextField label="Workspace" value={workspace} onChange={(event) => setWorkspace(event.target.value)} placeholder="acme" hint="The workspace's slug, as in bitbucket.org/acme" error={errors.workspace} />
        <TextField label="Repository" value={repoSlug} onChange={(event) => setRepoSlug(event.target.value)} placeholder="widgets" hint="The repository's slug, as in bitbucket.org/acme/widgets" error={errors.repoSlug} />
      </div>
      <div className="grid-2">
        <TextField
          label="Access token"
          type="password"
          autoComplete="off"
          value={token}
          onChange={(event) => setToken(event.target.value)}
          hint="A repository, project or workspace access token; or, with the email beside it, an Atlassian API token"
          error={errors.token}
        />
        <TextField
          label="Atlassian account email"
          type="email"
          autoComplete="off"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          hint="For API tokens only: leave empty for an access token. An admin's API token makes commands available."
          error={errors.email}
        />
      </div>
      <div className="row">
        <button type="submit" className="button button-primary" disabled={connect.isPending}>
          Connect repository
        </button>
        {connect.isSuccess ? <Notice>Connected {connect.data.repository.fullName}.</Notice> : null}
      </div>
    </form>
  );
}

function ConnectionRow({ connection }: { connection: BitbucketConnection }) {
  const queryClient = useQueryClient();
  const disconnect = useMutation({
    mutationFn: () => api('DELETE', `/bitbucket/connections/${connection.id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queries.bitbucketConnections().queryKey }),
  });
  const name = connection.repository.fullName;

  return (
    <li className="card provider-row" aria-label={name}>
      <div className="provider-main">
        <p className="item-title">
          <a href={connection.repository.htmlUrl} target="_blank" rel="noreferrer">
            {name}
          </a>{' '}
          {connection.status === 'active' ? <span className="badge badge-status-completed">active</span> : <span className="badge badge-status-failed">broken</span>}{' '}
          {connection.commands ? <span className="badge">commands available</span> : <span className="badge">commands unavailable</span>}
        </p>
        <p className="meta">connected {dateTime(connection.createdAt)}</p>
        {connection.commands ? null : (
          <p className="meta">
            An admin&apos;s Atlassian API token is needed for commands: this token cannot read the repository&apos;s permissions, so commands are ignored. Disconnect and connect again with
            one to use them.
          </p>
        )}
        {connection.status === 'broken' ? (
          // Bitbucket's messages end with their own full stop.
          <p className="field-error">Bitbucket refused the token: {connection.reason?.replace(/\.+$/, '')}. Disconnect and connect again with a new token.</p>
        ) : null}
        <ErrorAlert error={disconnect.error} />
      </div>
      <ConfirmAction label="Disconnect" question={`Disconnect ${name}? Its webhook is removed.`} onConfirm={() => disconnect.mutate()} pending={disconnect.isPending} />
    </li>
  );
}
