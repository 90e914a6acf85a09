import { useState } from 'react';

/**
 * A destructive button that asks first: `label` shows the question and the same button again,
 * with `Cancel` beside it.
 */
export function ConfirmAction({ label, question, onConfirm, pending }: { label: string; question: string; onConfirm: () => void; pending: boolean }) {
  const [confirming, setConfirming] = useState(false);
  return confirming ? (
    <span className="row">
      <span className="meta">{question}</span>
      <button type="button" className="button button-danger button-small" onClick={onConfirm} disabled={pending}>
        {label}
      </button>
      <button type="button" className="button button-small" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </span>
  ) : (
    <button type="button" className="button button-small" onClick={() => setConfirming(true)}>
      {label}
    </button>
  );
}
