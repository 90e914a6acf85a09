import { useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ModelList } from '../../api/types';
import { InlineSelect } from '../../components/field';

/** The message box: Enter sends, Shift+Enter starts a new line; nothing is sent while an answer streams. */
export function Composer({ busy, onSend, models, model, onPickModel }: { busy: boolean; onSend: (message: string) => void; models: ModelList | undefined; model: string; onPickModel: (value: string) => void }) {
  const [text, setText] = useState('');
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const message = text.trim();
    if (!message || busy) return;
    setText('');
    onSend(message);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey) submit(event);
  };
  return (
    <form className="chat-composer" onSubmit={submit}>
      <label className="visually-hidden" htmlFor="chat-message">
        Message
      </label>
      <textarea
        id="chat-message"
        rows={3}
        placeholder="Ask about a pull request… (Enter to send, Shift+Enter for a new line)"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-row">
        <ModelSelect models={models} value={model} onChange={onPickModel} />
        <button type="submit" className="button button-primary" disabled={busy || !text.trim()}>
          Send
        </button>
      </div>
    </form>
  );
}

function ModelSelect({ models, value, onChange }: { models: ModelList | undefined; value: string; onChange: (value: string) => void }) {
  return (
    <InlineSelect label="Model" value={value} onChange={(event) => onChange(event.target.value)}>
      <option value="">Default model</option>
      {models?.map((entry) => (
        <optgroup key={entry.id} label={entry.modelProviderName === 'platform' ? 'Platform (free allowance)' : entry.modelProviderName}>
          {entry.availableModels.map((model) => (
            <option key={`${entry.id}::${model.id}`} value={`${entry.id}::${model.id}`}>
              {model.name || model.id}
            </option>
          ))}
        </optgroup>
      ))}
    </InlineSelect>
  );
}
