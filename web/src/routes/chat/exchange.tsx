import type { ReactNode } from 'react';
import { Markdown } from '../../components/markdown';
import type { ChatAnswer } from '../../lib/ndjson';

/** One message and its answer: the tools it used, the text as it streams in, an error, and a footer. */
export function Exchange({ input, answer, streaming = false, footer }: { input: string; answer: ChatAnswer; streaming?: boolean; footer?: ReactNode }) {
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
