import type { Finding } from '../api/types';
import { location } from '../lib/findings';
import { SeverityBadge } from './badges';
import { Markdown } from './markdown';

/** One finding: severity, title, `file:line`, then the comment, the failure scenario and the fix. */
export function FindingCard({ finding, compact = false, anchor = false, onLocate }: { finding: Finding; compact?: boolean; anchor?: boolean; onLocate?: () => void }) {
  const where = location(finding);
  return (
    <article
      className={`finding finding-${finding.severity.toLowerCase()}${compact ? ' finding-compact' : ''}`}
      id={anchor ? `diff-${finding.id ?? `${finding.file}:${finding.line}`}` : undefined}
      aria-label={`${finding.severity} ${finding.title}`}
    >
      <header className="finding-header">
        <SeverityBadge severity={finding.severity} />
        <h4 className="finding-title">{finding.title}</h4>
        {onLocate ? (
          <button type="button" className="link-button location" onClick={onLocate} title="Show in the diff">
            {where}
          </button>
        ) : (
          <code className="location">{where}</code>
        )}
        {finding.verdict ? <span className="badge">{finding.verdict}</span> : null}
      </header>
      <Markdown>{finding.comment}</Markdown>
      {finding.failureScenario ? (
        <div className="finding-part">
          <h5>Failure scenario</h5>
          <Markdown>{finding.failureScenario}</Markdown>
        </div>
      ) : null}
      {finding.suggestedFix ? (
        <div className="finding-part">
          <h5>Suggested fix</h5>
          <Markdown>{finding.suggestedFix}</Markdown>
        </div>
      ) : null}
    </article>
  );
}
