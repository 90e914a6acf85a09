import { useEffect, useRef } from 'react';
import type { HistoryItem } from '../../api/types';
import { Empty, ErrorAlert, Loading } from '../../components/status';
import { Exchange } from './exchange';
import { MessageActions, type Feedback } from './message-actions';
import type { Live } from './use-chat-stream';

interface MessagesProps {
  /** The open thread; undefined for a new one. */
  conversationId: string | undefined;
  history: { isPending: boolean; error: unknown; data: HistoryItem[] | undefined };
  live: Live | null;
  error: unknown;
  onFeedback: (feedback: Feedback) => void;
  onRegenerate: (item: HistoryItem) => void;
}

/** The conversation: the stored exchanges with their actions, then the one streaming in, kept scrolled to the end. */
export function Messages({ conversationId, history, live, error, onFeedback, onRegenerate }: MessagesProps) {
  const endRef = useRef<HTMLDivElement>(null);
  // A block body: Chromium's scrollIntoView returns a promise, which React would take for a cleanup.
  useEffect(() => {
    void endRef.current?.scrollIntoView({ block: 'end' });
  }, [live?.answer.text, history.data?.length]);

  const messages = history.data ?? [];
  const lastId = messages[messages.length - 1]?.id;
  return (
    <div className="chat-messages" aria-live="polite">
      {conversationId && history.isPending ? <Loading /> : null}
      <ErrorAlert error={history.error} />
      {!conversationId && !live ? <Empty title="Ask about your pull requests">The assistant can read your pull requests and their diffs.</Empty> : null}
      {messages.map((item) => (
        <Exchange
          key={item.id}
          input={item.inputMessage}
          answer={{ text: item.outputMessage, tools: item.usedToolCalls }}
          footer={<MessageActions item={item} last={item.id === lastId} busy={live?.streaming ?? false} onFeedback={onFeedback} onRegenerate={() => onRegenerate(item)} />}
        />
      ))}
      {live ? <Exchange input={live.input} answer={live.answer} streaming={live.streaming} /> : null}
      <ErrorAlert error={error} />
      <div ref={endRef} />
    </div>
  );
}
