import type { HistoryItem } from '../../api/types';

type Thumb = 'postive' | 'negitive';
export type Feedback = { messageId: string; userFeedback?: Thumb | null; regeneratedMsg?: boolean };

/** Under a stored answer: thumbs up or down (pressed again, taken back), regenerate for the last one, the model that answered. */
export function MessageActions({ item, last, busy, onFeedback, onRegenerate }: { item: HistoryItem; last: boolean; busy: boolean; onFeedback: (feedback: Feedback) => void; onRegenerate: () => void }) {
  const thumb = (value: Thumb, label: string) => (
    <button
      type="button"
      className="button button-small"
      aria-pressed={item.thumbsFeedback === value}
      onClick={() => onFeedback({ messageId: item.id, userFeedback: item.thumbsFeedback === value ? null : value })}
    >
      {label}
    </button>
  );
  return (
    <div className="message-actions">
      {thumb('postive', 'Good answer')}
      {thumb('negitive', 'Bad answer')}
      {last ? (
        <button type="button" className="button button-small" onClick={onRegenerate} disabled={busy}>
          Regenerate
        </button>
      ) : null}
      {item.llmModel ? <span className="meta">{item.llmModel}</span> : null}
    </div>
  );
}
