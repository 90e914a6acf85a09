import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { probeBody, registerBody, PROVIDER_NAMES } from '../../../../src/routes/byok/byok-schemas.js';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { ProbeResult, ProviderCard, Registered } from '../../api/types';
import { ConfirmAction } from '../../components/confirm-action';
import { SelectField, TextField } from '../../components/field';
import { Empty, ErrorAlert, Loading, Notice } from '../../components/status';
import { dateTime } from '../../lib/format';
import { spacePath } from '../../lib/spaces';
import { fieldErrors } from '../../lib/validation';

const LABELS: Record<(typeof PROVIDER_NAMES)[number], string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  openrouter: 'OpenRouter',
  custom: 'Custom',
};

const label = (name: string) => LABELS[name as keyof typeof LABELS] ?? name;

export function ProvidersPage() {
  return <Providers />;
}

/**
 * The provider keys of a space: the caller's own, or an organization's (`orgId`, decisions.md §15),
 * which its members see without the controls (`readOnly`). Keys are never shown.
 */
export function Providers({ orgId, readOnly = false }: { orgId?: string; readOnly?: boolean }) {
  const providers = useQuery(queries.providers(orgId));
  const Title = orgId === undefined ? 'h1' : 'h2';
  const SubTitle = orgId === undefined ? 'h2' : 'h3';
  return (
    <div className="stack-lg">
      <Title>AI providers</Title>
      <p className="meta">
        {orgId === undefined
          ? 'Your own keys (BYOK): reviews and chat on them spend none of the free allowance.'
          : 'The organization’s keys: its reviews, verifications and commands use them before its allowance.'}{' '}
        A key is stored encrypted and never shown again.
      </p>
      {readOnly ? <p className="meta">Only owners and admins add, change or remove keys.</p> : <AddProvider orgId={orgId} Heading={SubTitle} />}
      <section className="stack" aria-labelledby="providers-heading">
        <SubTitle id="providers-heading">Saved keys</SubTitle>
        {providers.isPending ? <Loading /> : null}
        <ErrorAlert error={providers.error} />
        {providers.data?.length === 0 ? <Empty title="No provider keys yet">Platform models serve {orgId === undefined ? 'you' : 'the organization'} until the allowance is spent.</Empty> : null}
        <ul className="provider-list">
          {providers.data?.map((provider) => (
            <ProviderRow key={provider.id} orgId={orgId} provider={provider} readOnly={readOnly} />
          ))}
        </ul>
      </section>
    </div>
  );
}

function AddProvider({ orgId, Heading }: { orgId?: string; Heading: 'h2' | 'h3' }) {
  const queryClient = useQueryClient();
  const [provider, setProvider] = useState<string>('openai');
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});

  const body = () => ({ modelProviderName: provider, apiKey, customBaseUrl: baseUrl.trim() || undefined });
  const probe = useMutation({ mutationFn: (input: unknown) => api<ProbeResult>('POST', `${spacePath(orgId, '/byok')}/model-list`, input) });
  const save = useMutation({
    mutationFn: (input: unknown) => api<Registered>('POST', spacePath(orgId, '/byok'), input),
    onSuccess: async () => {
      setApiKey('');
      probe.reset();
      await queryClient.invalidateQueries({ queryKey: ['providers'] });
      await queryClient.invalidateQueries({ queryKey: ['model-list'] });
    },
  });

  const validate = (schema: typeof probeBody | typeof registerBody) => {
    const parsed = schema.safeParse(body());
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return undefined;
    }
    setErrors({});
    return parsed.data;
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const data = validate(registerBody);
    if (data) save.mutate(data);
  };
  const check = () => {
    const data = validate(probeBody);
    if (data) probe.mutate(data);
  };
  // The probe answers the provider's models, then the platform's entry.
  const probed = probe.data?.byokModels.flatMap((model) => ('modelProviderName' in model ? [] : [model])) ?? [];

  return (
    <form className="card stack" onSubmit={submit} noValidate aria-labelledby="add-provider">
      <Heading id="add-provider">Add or replace a key</Heading>
      <ErrorAlert error={probe.error ?? save.error} />
      <div className="grid-2">
        <SelectField label="Provider" value={provider} onChange={(event) => setProvider(event.target.value)}>
          {PROVIDER_NAMES.map((name) => (
            <option key={name} value={name}>
              {LABELS[name]}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Base URL"
          value={baseUrl}
          onChange={(event) => setBaseUrl(event.target.value)}
          placeholder={provider === 'custom' ? 'https://gateway.example/v1' : 'optional: a proxy in front of the provider'}
          error={errors.customBaseUrl}
        />
      </div>
      <TextField label="API key" type="password" autoComplete="off" value={apiKey} onChange={(event) => setApiKey(event.target.value)} error={errors.apiKey} />
      <div className="row">
        <button type="button" className="button" onClick={check} disabled={probe.isPending}>
          Check models
        </button>
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save key
        </button>
        {save.isSuccess ? <Notice>Saved with {save.data.models.length} models.</Notice> : null}
      </div>
      {probe.isSuccess ? (
        <div className="probe-result" role="status">
          <p>
            <strong>{probed.length} models</strong> available with this key.
          </p>
          <ul className="chips">
            {probed.slice(0, 30).map((model) => (
              <li key={model.id} className="chip">
                {model.name || model.id}
              </li>
            ))}
            {probed.length > 30 ? <li className="chip">+{probed.length - 30} more</li> : null}
          </ul>
        </div>
      ) : null}
    </form>
  );
}

function ProviderRow({ orgId, provider, readOnly }: { orgId?: string; provider: ProviderCard; readOnly: boolean }) {
  const queryClient = useQueryClient();
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['providers'] });
    await queryClient.invalidateQueries({ queryKey: ['model-list'] });
  };
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api('PATCH', `${spacePath(orgId, '/byok')}/providers/${provider.id}`, { enabled }),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: () => api('DELETE', `${spacePath(orgId, '/byok')}/providers/${provider.id}`), onSuccess: refresh });
  const name = label(provider.modelProviderName);

  return (
    <li className="card provider-row" aria-label={name}>
      <div className="provider-main">
        <p className="item-title">{name}</p>
        <p className="meta">
          {provider.modelCount} models{provider.customBaseUrl ? ` · ${provider.customBaseUrl}` : ''} · added {dateTime(provider.createdAt)}
        </p>
        <ErrorAlert error={toggle.error ?? remove.error} />
      </div>
      {readOnly ? (
        <p className="meta">{provider.enabled ? 'Enabled' : 'Disabled'}</p>
      ) : (
        <>
          <label className="switch">
            <input
              type="checkbox"
              role="switch"
              checked={toggle.isPending ? toggle.variables : provider.enabled}
              onChange={(event) => toggle.mutate(event.target.checked)}
              aria-label="Enabled"
            />
            <span aria-hidden="true">Enabled</span>
          </label>
          <ConfirmAction label="Delete" question={`Delete the ${name} key?`} onConfirm={() => remove.mutate()} pending={remove.isPending} />
        </>
      )}
    </li>
  );
}
