import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { createTokenBody } from '../../../../src/routes/auth/api-token-schemas.js';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { ApiTokenItem, CreatedApiToken } from '../../api/types';
import { ConfirmAction } from '../../components/confirm-action';
import { TextField } from '../../components/field';
import { Empty, ErrorAlert, Loading } from '../../components/status';
import { dateTime } from '../../lib/format';
import { fieldErrors } from '../../lib/validation';

/** Personal API tokens (decisions.md §17): for scripts, CI and the `ai-review` command. */
export function TokensPage() {
  const tokens = useQuery(queries.apiTokens());
  return (
    <div className="stack-lg">
      <h1>API tokens</h1>
      <p className="meta">
        For scripts, CI and the <code>ai-review</code> command: send a token as <code>Authorization: Bearer …</code>. A token acts as you, except on your account,
        password and tokens. Changing your password revokes every token.
      </p>
      <CreateToken />
      <section className="stack" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Your tokens</h2>
        {tokens.isPending ? <Loading /> : null}
        <ErrorAlert error={tokens.error} />
        {tokens.data?.length === 0 ? <Empty title="No tokens yet">Create one above to sign in the command line or a CI job.</Empty> : null}
        <ul className="provider-list">
          {tokens.data?.map((token) => (
            <TokenRow key={token.id} token={token} />
          ))}
        </ul>
      </section>
    </div>
  );
}

function CreateToken() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [days, setDays] = useState('90');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation({
    mutationFn: (input: unknown) => api<CreatedApiToken>('POST', '/auth/tokens', input),
    onSuccess: async () => {
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['api-tokens'] });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = createTokenBody.safeParse({ name, expiresInDays: days.trim() === '' ? undefined : Number(days) });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    create.mutate(parsed.data);
  };

  return (
    <form className="card stack" onSubmit={submit} noValidate aria-labelledby="create-token">
      <h2 id="create-token">Create a token</h2>
      <ErrorAlert error={create.error} />
      <div className="grid-2">
        <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} placeholder="e.g. laptop, CI" maxLength={100} error={errors.name} />
        <TextField label="Expires in (days)" type="number" inputMode="numeric" min={1} max={365} value={days} onChange={(event) => setDays(event.target.value)} error={errors.expiresInDays} />
      </div>
      <div className="row">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          Create token
        </button>
      </div>
      {create.data ? <NewToken created={create.data} /> : null}
    </form>
  );
}

/** The token itself, this once: the service keeps only its hash. */
function NewToken({ created }: { created: CreatedApiToken }) {
  const [copied, setCopied] = useState(false);
  const copy = useMutation({
    mutationFn: () => navigator.clipboard.writeText(created.token),
    onSuccess: () => {
      setCopied(true);
      setTimeout(() => setCopied(false), 2_000);
    },
  });
  return (
    <div className="probe-result stack" role="status">
      <p>
        <strong>Copy “{created.name}” now:</strong> it will not be shown again.
      </p>
      <div className="row new-token">
        <TextField label="New token" readOnly value={created.token} onFocus={(event) => event.target.select()} spellCheck={false} />
        <button type="button" className="button button-small" onClick={() => copy.mutate()}>
          Copy
        </button>
        {copied ? <span className="notice">Copied.</span> : null}
      </div>
      <ErrorAlert error={copy.error} />
    </div>
  );
}

function TokenRow({ token }: { token: ApiTokenItem }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => api('DELETE', `/auth/tokens/${token.id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-tokens'] }),
  });
  return (
    <li className="card provider-row" aria-label={token.name}>
      <div className="provider-main">
        <p className="item-title">
          {token.name} <code>{token.prefix}…</code>
        </p>
        <p className="meta">
          {token.lastUsedAt ? `last used ${dateTime(token.lastUsedAt)}` : 'never used'} · created {dateTime(token.createdAt)} · expires {dateTime(token.expiresAt)}
        </p>
        <ErrorAlert error={revoke.error} />
      </div>
      <ConfirmAction label="Revoke" question={`Revoke “${token.name}”? Whatever uses it stops at once.`} onConfirm={() => revoke.mutate()} pending={revoke.isPending} />
    </li>
  );
}
