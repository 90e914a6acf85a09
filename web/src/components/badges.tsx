import { scoreDisplay } from '../lib/format';

export function ScoreBadge({ score, label = 'Score' }: { score: number | null | undefined; label?: string }) {
  const { text, tone } = scoreDisplay(score);
  return (
    <span className={`score score-${tone}`} title={label}>
      <span className="visually-hidden">{label} </span>
      {text}
    </span>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-status-${status}`}>{status}</span>;
}

export function SeverityBadge({ severity }: { severity: string }) {
  return <span className={`badge badge-sev-${severity.toLowerCase()}`}>{severity.toUpperCase()}</span>;
}
