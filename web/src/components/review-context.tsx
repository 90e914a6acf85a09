import type { ContextBlockRecord, ReviewInformation, ToolCallRecord } from '../api/types';
import { plural } from '../lib/format';
const KIND_NAMES: Record<ContextBlockRecord['kind'], string> = { scope: 'Enclosing scope', definition: 'Definition', caller: 'Caller' };
const SOURCES = { tarball: "the head commit's archive", files: 'the head commit, file by file (the repository is over the snapshot size)', none: '' } as const;


/**
 * What the model read besides the diff (decisions.md §11's transparency): the scopes, definitions
 * and callers each part of the diff was shown with, and deep mode's tool calls. Collapsed: most
 * readers want the findings; this is for judging them.
 */
export function ReviewContext({ info }: { info: ReviewInformation }) {
  const context = info.context;
  if (!context) return null;
  const blocks = info.reviewRawJSON?.contextBlocks ?? [];
  const calls = info.reviewRawJSON?.toolCalls ?? [];
  const chunks = [...new Set([...blocks.map((block) => block.chunk), ...calls.map((call) => call.chunk)])].sort((a, b) => a - b);
  const counted = context.scopes + context.definitions + context.callers;
  const unlisted = counted - blocks.length;
  const totals = [plural(context.scopes, 'scope'), plural(context.definitions, 'definition'), ...(context.callers > 0 ? [plural(context.callers, 'caller')] : []), plural(context.toolCalls, 'tool call')];

  return (
    <details className="card review-context">
      <summary>
        <span className="review-context-title">What the reviewer read</span> <span className="meta">{totals.join(' · ')}</span>
      </summary>
      <div className="stack review-context-body">
        {context.snapshot === 'none' ? (
          <p>Only the diff: the repository&apos;s code was not read for this review.</p>
        ) : (
          <p>
            Besides the diff, {plural(context.tokens, 'token')} of code from {SOURCES[context.snapshot]}, marked read-only in the prompt.
          </p>
        )}
        {chunks.map((chunk) => (
          <ChunkContext key={chunk} chunk={chunk} titled={chunks.length > 1} blocks={blocks.filter((block) => block.chunk === chunk)} calls={calls.filter((call) => call.chunk === chunk)} />
        ))}
        {unlisted > 0 ? <p className="meta">and {plural(unlisted, 'more block')}, not listed</p> : null}
      </div>
    </details>
  );
}

function ChunkContext({ chunk, titled, blocks, calls }: { chunk: number; titled: boolean; blocks: ContextBlockRecord[]; calls: ToolCallRecord[] }) {
  return (
    <section className="stack" aria-label={`Part ${chunk + 1} of the diff`}>
      {titled ? <h3 className="review-context-part">Part {chunk + 1} of the diff</h3> : null}
      {blocks.length > 0 ? (
        <ul className="plain-list context-list">
          {blocks.map((block) => (
            <li key={`${block.kind}-${block.path}-${block.startLine}`}>
              <span className={`badge badge-context-${block.kind}`}>{KIND_NAMES[block.kind]}</span>{' '}
              <code>
                {block.path}:{block.startLine}-{block.endLine}
              </code>{' '}
              <span className="meta">
                {block.about}
                {block.elided ? ' (shortened)' : ''}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {calls.length > 0 ? <p className="meta review-context-tools">Asked for through tools:</p> : null}
      {calls.length > 0 ? (
        <ol className="context-list tool-call-list" aria-label={`Tool calls of part ${chunk + 1}`}>
          {calls.map((call, index) => (
            <li key={index}>
              <code>
                {call.tool}({describeInput(call.input)})
              </code>{' '}
              <span className="meta">{call.refused ? `not answered (${call.refused})` : plural(call.tokens, 'token')}</span>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

/** The tools' parameters in the order they are declared: a stored input (jsonb) does not keep the model's order. */
const PARAMETER_ORDER = ['path', 'symbol', 'text', 'pathGlob', 'startLine', 'endLine'];
const position = (key: string) => (PARAMETER_ORDER.includes(key) ? PARAMETER_ORDER.indexOf(key) : PARAMETER_ORDER.length);

/** A call's input, short: `path: "shop/cart.py", startLine: 1`. */
function describeInput(input: Record<string, unknown>): string {
  const text = Object.entries(input)
    .sort(([a], [b]) => position(a) - position(b))
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`)
    .join(', ');
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
