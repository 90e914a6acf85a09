import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearch } from '@tanstack/react-router';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import type { HistoryItem } from '../../api/types';
import { Composer } from './composer';
import type { Feedback } from './message-actions';
import { Messages } from './messages';
import { ThreadList } from './thread-list';
import { useChatStream } from './use-chat-stream';
import { usePickedModel } from './use-picked-model';
import { useThreads } from './use-threads';

/** `/chat` (a new thread) and `/chat/:id`: threads on the side, the conversation streaming in. */
export function ChatPage() {
  const conversationId = useParams({ strict: false }).id;
  const { prId } = useSearch({ strict: false });
  const queryClient = useQueryClient();
  const threads = useThreads();
  const history = useQuery({ ...queries.history(conversationId ?? ''), enabled: conversationId !== undefined });
  const models = useQuery(queries.modelList());
  const [model, pickModel] = usePickedModel();
  const { live, error, send } = useChatStream({ conversationId, prId, model, models: models.data });

  const feedback = useMutation({
    mutationFn: (body: Feedback) => api('PATCH', '/conversation/feedback', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['history', conversationId] }),
  });
  const regenerate = async (item: HistoryItem) => {
    await feedback.mutateAsync({ messageId: item.id, regeneratedMsg: true });
    await send(item.inputMessage);
  };
  const title = threads.items.find((thread) => thread.id === conversationId)?.title;

  return (
    <div className="chat-layout">
      <ThreadList threads={threads} />
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
        <Messages
          conversationId={conversationId}
          history={history}
          live={live}
          error={error ?? feedback.error}
          onFeedback={(body) => feedback.mutate(body)}
          onRegenerate={(item) => void regenerate(item)}
        />
        <Composer busy={live?.streaming ?? false} onSend={(message) => void send(message)} models={models.data} model={model} onPickModel={pickModel} />
      </section>
    </div>
  );
}
