import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { streamChat, type ChatRequest } from '../api/chat';
import { api } from '../api/client';
import { queries } from '../api/queries';
import type { HistoryItem, ModelList } from '../api/types';
import { Markdown } from '../components/markdown';
import { Empty, ErrorAlert, Loading } from '../components/status';
import { joinPages } from '../lib/cursors';
import { ago } from '../lib/format';
import type { ChatAnswer } from '../lib/ndjson';
import { InlineSelect } from '../components/field';

const MODEL_KEY = 'chat-model';

interface Live {
  input: string;
  answer: ChatAnswer;
  streaming: boolean;
}

/** `/chat` (a new thread) and `/chat/:id`: threads on the side, the conversation streaming in. */
export function ChatPage() {
  const params = useParams({ strict: false });
  const conversationId = params.id;
  const { prId } = useSearch({ strict: false });
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  const threads = useInfiniteQuery(queries.threads());
  const threadItems = useMemo(() => joinPages(threads.data?.pages ?? [], (thread) => thread.id), [threads.data]);
  const history = useQuery({ ...queries.history(conversationId ?? ''), enabled: conversationId !== undefined });
  const models = useQuery(queries.modelList());
  // The model picked last stays picked, across threads and visits.
  const [model, setModel] = useState(() => localStorage.getItem(MODEL_KEY) ?? '');
  const pickModel = (value: string) => {
    setModel(value);
    localStorage.setItem(MODEL_KEY, value);
  };
  const [live, setLive] = useState<Live | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [text, setText] = useState('');
  const endRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    setLive(null);
  }, [conversationId]);
  // A block body: Chromium's scrollIntoView returns a promise, which React would take for a cleanup.
  useEffect(() => {
    void endRef.current?.scrollIntoView({ block: 'end' });
  }, [live?.answer.text, history.data?.length]);

  const send = async (message: string) => {
    setError(null);
    setLive({ input: message, answer: { text: '', tools: [] }, streaming: true });
    try {
      const known = models.data?.some((entry) => entry.availableModels.some((option) => `${entry.id}::${option.id}` === model)) ?? false;
      const body: ChatRequest = { message, ...modelChoice(known ? model : '') };
      if (conversationId) body.conversationId = conversationId;
      else if (prId) body.prId = prId;
      const answer = await streamChat(body, (partial) => setLive({ input: message, answer: partial, streaming: true }));
      setLive({ input: message, answer, streaming: false });
      const threadId = conversationId ?? answer.conversationId;
      void queryClient.invalidateQueries({ queryKey: ['threads'] });
      if (threadId) {
        await queryClient.invalidateQueries({ queryKey: ['history', threadId] });
        if (!conversationId) {
          await queryClient.prefetchQuery(queries.history(threadId));
          await navigate({ to: '/chat/$id', params: { id: threadId }, search: { prId: undefined }, replace: true });
        } else if (!answer.error) setLive(null);
      }
    } catch (failure) {
      setError(failure);
      setLive(null);
    }
  };

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const message = text.trim();
    if (!message || live?.streaming) return;
    setText('');
    void send(message);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey) submit(event);
  };

  const feedback = useMutation({
    mutationFn: (body: { messageId: string; userFeedback?: 'postive' | 'negitive' | null; regeneratedMsg?: boolean }) => api('PATCH', '/conversation/feedback', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['history', conversationId] }),
  });
  const regenerate = async (item: HistoryItem) => {
    await feedback.mutateAsync({ messageId: item.id, regeneratedMsg: true });
    await send(item.inputMessage);
  };

  const messages = history.data ?? [];
  const lastId = messages[messages.length - 1]?.id;
  const title = threadItems.find((thread) => thread.id === conversationId)?.title;

  return (
    <div className="chat-layout">
      <aside className="chat-threads" aria-labelledby="threads-heading">
        <div className="chat-threads-header">
          <h2 id="threads-heading">Threads</h2>
          <Link to="/chat" search={{ prId: undefined }} className="button button-small">
            New chat
          </Link>
        </div>
        {threads.isPending ? <Loading /> : null}
        <ErrorAlert error={threads.error} />
        {threads.data && threadItems.length === 0 ? <p className="meta">No conversations yet.</p> : null}
        <ul className="thread-list">
          {threadItems.map((thread) => (
            <li key={thread.id}>
              <Link to="/chat/$id" params={{ id: thread.id }} search={{ prId: undefined }} activeProps={{ className: 'active', 'aria-current': 'page' }}>
                <span className="thread-title">{thread.title}</span>
                <span className="meta">{ago(thread.updatedAt)}</span>
              </Link>
            </li>
          ))}
        </ul>
        {threads.hasNextPage ? (
          <button type="button" className="button button-small" onClick={() => void threads.fetchNextPage()} disabled={threads.isFetchingNextPage}>
            Load more
          </button>
        ) : null}
      </aside>

      <section className="chat-main">
        <header className="chat-header">
          <h1>{conversationId ? (title ?? 'Conversation') : 'New conversation'}</h1>
          {prId && !conversationId ? (
            <p className="meta">
              About pull request{' '}
              <Link to="/pulls/$prId" params={{ prId }}>
                {prId}
              </Link>
            </p>
          ) : null}
        </header>

        <div className="chat-messages" aria-live="polite">
          {conversationId && history.isPending ? <Loading /> : null}
          <ErrorAlert error={history.error} />
          {!conversationId && !live ? (
            <Empty title="Ask about your pull requests">The assistant can read your pull requests and their diffs.</Empty>
          ) : null}
          {messages.map((item) => (
            <Exchange
              key={item.id}
              input={item.inputMessage}
              answer={{ text: item.outputMessage, tools: item.usedToolCalls }}
              footer={
                <div className="message-actions">
                  <button
                    type="button"
                    className="button button-small"
                    aria-pressed={item.thumbsFeedback === 'postive'}
                    onClick={() => feedback.mutate({ messageId: item.id, userFeedback: item.thumbsFeedback === 'postive' ? null : 'postive' })}
                  >
                    Good answer
                  </button>
                  <button
                    type="button"
                    className="button button-small"
                    aria-pressed={item.thumbsFeedback === 'negitive'}
                    onClick={() => feedback.mutate({ messageId: item.id, userFeedback: item.thumbsFeedback === 'negitive' ? null : 'negitive' })}
                  >
                    Bad answer
                  </button>
                  {item.id === lastId ? (
                    <button type="button" className="button button-small" onClick={() => void regenerate(item)} disabled={live?.streaming}>
                      Regenerate
                    </button>
                  ) : null}
                  {item.llmModel ? <span className="meta">{item.llmModel}</span> : null}
                </div>
              }
            />
          ))}
          {live ? <Exchange input={live.input} answer={live.answer} streaming={live.streaming} /> : null}
          <ErrorAlert error={error ?? feedback.error} />
          <div ref={endRef} />
        </div>

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
            <ModelSelect models={models.data} value={model} onChange={pickModel} />
            <button type="submit" className="button button-primary" disabled={live?.streaming || !text.trim()}>
              Send
            </button>
          </div>
        </form>
      </section>
    </div>
  );
}

function Exchange({ input, answer, streaming = false, footer }: { input: string; answer: ChatAnswer; streaming?: boolean; footer?: React.ReactNode }) {
  return (
    <div className="exchange">
      <div className="message message-user">
        <p>{input}</p>
      </div>
      <div className="message message-assistant" aria-busy={streaming}>
        {answer.tools.length > 0 ? (
          <p className="tools">
            {answer.tools.map((tool) => (
              <span key={tool} className="badge badge-tool">
                used {tool}
              </span>
            ))}
          </p>
        ) : null}
        {answer.text ? <Markdown>{answer.text}</Markdown> : streaming ? <span className="typing">Thinking…</span> : null}
        {answer.error ? (
          <p className="alert alert-error" role="alert">
            {answer.error}
          </p>
        ) : null}
        {footer}
      </div>
    </div>
  );
}

/** `provider::model`; the platform's entry needs no provider. */
function modelChoice(value: string): Pick<ChatRequest, 'llmModel' | 'customModelData'> {
  if (!value) return {};
  const [providerId, ...rest] = value.split('::');
  const llmModel = rest.join('::');
  return providerId === '1' || !providerId ? { llmModel } : { llmModel, customModelData: { providerId } };
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
