import type { HistoryItem } from '../../api/types';

export type Feedback = { messageId: string; userFeedback?: 'postive' | 'negitive' | null; regeneratedMsg?: boolean };

/** Under a stored answer: thumbs up or down (pressed again, taken back), regenerate for the last one, the model that answered. */
export function MessageActions({ item, last, busy, onFeedback, onRegenerate }: { item: HistoryItem; last: boolean; busy: boolean; onFeedback: (feedback: Feedback) => void; onRegenerate: () => void }) {
  return (
    <div className="message-actions">
      <button
        type="button"
        className="button button-small"
        aria-pressed={item.thumbsFeedback === 'postive'}
        onClick={() => onFeedback({ messageId: item.id, userFeedback: item.thumbsFeedback === 'postive' ? null : 'postive' })}
      >
        Good answer
      </button>
      <button
        type="button"
        className="button button-small"
        aria-pressed={item.thumbsFeedback === 'negitive'}
        onClick={() => onFeedback({ messageId: item.id, userFeedback: item.thumbsFeedback === 'negitive' ? null : 'negitive' })}
      >
        Bad answer
      </button>
      {last ? (
        <button type="button" className="button button-small" onClick={onRegenerate} disabled={busy}>
          Regenerate
        </button>
      ) : null}
      {item.llmModel ? <span className="meta">{item.llmModel}</span> : null}
    </div>
  );
}
