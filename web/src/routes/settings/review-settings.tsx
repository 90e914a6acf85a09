import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { ModelList, WorkspaceSettings } from '../../api/types';
import { SelectField, TextArea } from '../../components/field';
import { ErrorAlert, Loading, Notice } from '../../components/status';
import { spacePath } from '../../lib/spaces';

const MODEL_FIELDS = [
  ['quickModeModel', 'Quick model'],
  ['focusedModeModel', 'Focused model'],
  ['deepModeModel', 'Deep model'],
] as const;
const PROMPT_FIELDS = [
  ['systemPrompt', 'System prompt', 'Added before every mode’s prompt.'],
  ['quickModePrompt', 'Quick prompt', ''],
  ['foucsedModePrompt', 'Focused prompt', ''],
  ['deepModePrompt', 'Deep prompt', ''],
] as const;

type Field = (typeof MODEL_FIELDS)[number][0] | (typeof PROMPT_FIELDS)[number][0];

export function ReviewSettingsPage() {
  return <ReviewSettings />;
}

/**
 * The review settings of a space: the caller's own, or an organization's (`orgId`, decisions.md
 * §15), which its members see without the controls (`readOnly`).
 */
export function ReviewSettings({ orgId, readOnly = false }: { orgId?: string; readOnly?: boolean }) {
  const settings = useQuery(queries.workspace(orgId));
  const models = useQuery({ ...queries.modelList(orgId), enabled: !readOnly });
  const Title = orgId === undefined ? 'h1' : 'h2';
  return (
    <div className="stack-lg">
      <Title>Review settings</Title>
      <p className="meta">
        The model and prompt each review mode uses{orgId === undefined ? '' : ' for the organization’s pull requests, whoever wrote them'}. Empty fields use the service’s defaults.
      </p>
      {settings.isPending || (!readOnly && models.isPending) ? <Loading /> : null}
      <ErrorAlert error={settings.error ?? models.error} />
      {readOnly && settings.isSuccess ? <SettingsView settings={settings.data} /> : null}
      {!readOnly && settings.isSuccess && models.isSuccess ? <SettingsForm orgId={orgId} settings={settings.data} models={models.data} /> : null}
    </div>
  );
}

/** The settings as text: what a member sees. */
function SettingsView({ settings }: { settings: WorkspaceSettings | null }) {
  const record = (settings ?? {}) as Record<string, unknown>;
  const text = (key: Field) => (typeof record[key] === 'string' && record[key] !== '' ? record[key] : undefined);
  return (
    <div className="card stack">
      <p className="meta">Only owners and admins change these settings.</p>
      <dl className="settings-view">
        {[...MODEL_FIELDS, ...PROMPT_FIELDS].map(([key, label]) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd className={text(key) === undefined ? 'meta' : 'prewrap'}>{text(key) ?? 'Default'}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

function SettingsForm({ orgId, settings, models }: { orgId?: string; settings: WorkspaceSettings | null; models: ModelList }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Record<Field, string>>(() => {
    const record = (settings ?? {}) as Record<string, unknown>;
    const pick = (key: Field) => {
      const value = record[key];
      return typeof value === 'string' ? value : '';
    };
    return Object.fromEntries([...MODEL_FIELDS, ...PROMPT_FIELDS].map(([key]) => [key, pick(key)])) as Record<Field, string>;
  });
  const options = useMemo(() => modelOptions(models), [models]);

  const save = useMutation({
    mutationFn: async () => {
      const body = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, value.trim() === '' ? null : value]));
      // The record is created on the first save, then changed in place.
      const path = `${spacePath(orgId, '/workspace')}/aiSettings`;
      if (settings === null) await api('POST', path, {});
      await api('PATCH', path, body);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['workspace'] }),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const set = (key: Field) => (event: { target: { value: string } }) => setValues((previous) => ({ ...previous, [key]: event.target.value }));

  return (
    <form className="card stack" onSubmit={submit}>
      <ErrorAlert error={save.error} />
      <div className="grid-3">
        {MODEL_FIELDS.map(([key, label]) => (
          <SelectField key={key} label={label} value={values[key]} onChange={set(key)}>
            <option value="">Default</option>
            {/* A stored slug no longer in the catalog stays selectable. */}
            {values[key] && !options.some((option) => option.value === values[key]) ? <option value={values[key]}>{values[key]}</option> : null}
            {options.map((option) => (
              <option key={option.key} value={option.value}>
                {option.label}
              </option>
            ))}
          </SelectField>
        ))}
      </div>
      {PROMPT_FIELDS.map(([key, label, hint]) => (
        <TextArea key={key} label={label} rows={key === 'systemPrompt' ? 4 : 3} value={values[key]} onChange={set(key)} hint={hint || undefined} maxLength={20_000} />
      ))}
      <div className="row">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save
        </button>
        {save.isSuccess ? <Notice>Saved.</Notice> : null}
      </div>
    </form>
  );
}

function modelOptions(entries: ModelList) {
  const seen = new Set<string>();
  const options: Array<{ key: string; value: string; label: string }> = [];
  for (const entry of entries) {
    for (const model of entry.availableModels) {
      if (seen.has(model.id)) continue;
      seen.add(model.id);
      options.push({ key: `${entry.id}:${model.id}`, value: model.id, label: `${model.name || model.id} (${entry.modelProviderName})` });
    }
  }
  return options;
}
