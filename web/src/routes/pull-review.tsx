import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useMemo, useRef, useState } from 'react';
import { scoreReview } from '../../../src/review/findings/score.js';
import { api } from '../api/client';
import { queries } from '../api/queries';
import type { ReviewInformation } from '../api/types';
import { ScoreBadge, StatusBadge } from '../components/badges';
import { DiffView, type DiffViewHandle } from '../components/diff-view';
import { FindingCard } from '../components/finding-card';
import { Markdown } from '../components/markdown';
import { Empty, ErrorAlert, Loading, Notice } from '../components/status';
import { groupFindings } from '../lib/findings';
import { dateTime, pipelineStep, plural } from '../lib/format';
import { hostName, repositoryOf } from '../lib/repository';
import { InlineSelect } from '../components/field';
import { ReviewContext } from '../components/review-context';

const route = getRouteApi('/signed-in/pulls/$prId');
const STEPS = ['WEBHOOK_RECEIVED', 'PAYLOAD_SANITIZED', 'PR_CONTENT_EXTRACTED', 'PROCESSING_COMPLETED'];

export function PullReviewPage() {
  const { prId } = route.useParams();
  const review = useQuery(queries.review(prId));

  if (review.isPending) return <Loading label="Loading the review…" />;
  if (review.error) {
    return (
      <div className="stack">
        <h1>Pull request</h1>
        <ErrorAlert error={review.error} />
        <Link to="/pulls" search={{}}>
          Back to pull requests
        </Link>
      </div>
    );
  }
  if (review.data === null) {
    return (
      <div className="stack">
        <h1>Pull request</h1>
        <Empty title="No review for this pull request yet" />
      </div>
    );
  }
  return <Review info={review.data} prId={prId} />;
}

function Review({ info, prId }: { info: ReviewInformation; prId: string }) {
  const raw = info.reviewRawJSON;
  const findings = useMemo(() => raw?.comments ?? [], [raw]);
  const groups = useMemo(() => groupFindings(findings), [findings]);
  const skipped = info.skippedFiles ?? raw?.skippedFiles ?? [];
  const pending = info.reviewStatus === 'pending';
  const diffRef = useRef<DiffViewHandle>(null);
  const diff = useQuery({ ...queries.diff(prId), enabled: !pending || info.state === 'PR_CONTENT_EXTRACTED' });
  const score = raw && info.reviewStatus === 'completed' ? scoreReview(raw) : null;
  const pageUrl = info.url ?? info.prHtmlUrl;
  const repository = repositoryOf(pageUrl);

  return (
    <div className="stack-lg review-page">
      <header className="pr-header">
        <div className="pr-header-main">
          <p className="meta">
            <span className={`badge badge-host-${info.provider}`}>{hostName(info.provider)}</span> {repository ?? (info.provider === 'gitlab' ? 'Merge request' : 'Pull request')} · {info.prHeadBranch} → {info.prBaseBranch}
          </p>
          <h1>{info.prTitle}</h1>
          <p className="meta pr-facts">
            <StatusBadge status={info.reviewStatus} />
            <span>
              <span className="diffstat">
                <span className="add">+{info.prAddtions ?? 0}</span> <span className="del">−{info.prDeletions ?? 0}</span>
              </span>{' '}
              in {typeof info.changedFiles === 'number' ? plural(info.changedFiles, 'file') : '? files'}
            </span>
            {raw?.summary?.risk ? <span className={`badge badge-risk-${raw.summary.risk.toLowerCase()}`}>risk: {raw.summary.risk}</span> : null}
            {info.mode ? <span className="badge">{info.mode}</span> : null}
            {info.reviewCompletedAt ? <span>reviewed {dateTime(info.reviewCompletedAt)}</span> : null}
            {pageUrl ? (
              <a href={pageUrl} target="_blank" rel="noreferrer">
                Open on {hostName(info.provider)}
              </a>
            ) : null}
          </p>
        </div>
        <div className="pr-score">
          <ScoreBadge score={score} />
          <span className="meta">score</span>
        </div>
      </header>

      <Actions info={info} prId={prId} />

      {pending ? <Progress state={info.state} /> : null}
      {info.reviewStatus === 'failed' ? (
        <div className="alert alert-error" role="alert">
          <strong>The review failed. </strong>
          {info.failureReason ?? 'No reason was kept.'}
        </div>
      ) : null}
      {info.configProblems && info.configProblems.length > 0 ? (
        <section className="card" aria-labelledby="config-problems">
          <h2 id="config-problems">Problems in .ai-review.yml</h2>
          <ul>
            {info.configProblems.map((problem) => (
              <li key={`${problem.line}-${problem.message}`}>
                line {problem.line}: {problem.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {info.publication?.state === 'published' && info.publication.reviewUrl ? (
        <Notice>
          Posted on {hostName(info.provider)}:{' '}
          <a href={info.publication.reviewUrl} target="_blank" rel="noreferrer">
            the review
          </a>
        </Notice>
      ) : null}

      {raw?.summary?.overview || raw?.summary?.intent ? (
        <section className="card" aria-labelledby="summary">
          <h2 id="summary">Summary</h2>
          {raw.summary.intent ? (
            <p className="intent">
              <strong>Intent:</strong> {raw.summary.intent}
            </p>
          ) : null}
          {raw.summary.overview ? <Markdown>{raw.summary.overview}</Markdown> : null}
        </section>
      ) : null}

      <section aria-labelledby="findings" className="stack">
        <h2 id="findings">
          Findings <span className="count-pill">{findings.length}</span>
        </h2>
        {findings.length === 0 && info.reviewStatus === 'completed' ? <Empty title="No findings: nothing to fix." /> : null}
        {groups.map((group) => (
          <div key={group.file} className="finding-group">
            <h3 className="finding-file">{group.file}</h3>
            {group.findings.map((finding, index) => (
              <FindingCard key={finding.id ?? index} finding={finding} onLocate={() => diffRef.current?.showFinding(finding)} />
            ))}
          </div>
        ))}
      </section>

      <ReviewContext info={info} />

      {skipped.length > 0 ? (
        <section className="card" aria-labelledby="skipped">
          <h2 id="skipped">Skipped files</h2>
          <ul className="skipped-list">
            {skipped.map((file) => (
              <li key={file.path}>
                <code>{file.path}</code> <span className="meta">— {file.reason}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-labelledby="diff" className="stack">
        <h2 id="diff">Diff</h2>
        {diff.isPending && diff.fetchStatus !== 'idle' ? <Loading label="Loading the diff…" /> : null}
        {diff.fetchStatus === 'idle' && diff.isPending ? <p className="meta">The diff appears once it has been read from {hostName(info.provider)}.</p> : null}
        <ErrorAlert error={diff.error} title="The diff could not be loaded" />
        {diff.data !== undefined ? <DiffView ref={diffRef} diff={diff.data} findings={findings} /> : null}
      </section>
    </div>
  );
}

function Actions({ info, prId }: { info: ReviewInformation; prId: string }) {
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<string>(info.mode ?? 'focused');
  const [copied, setCopied] = useState(false);
  const rerun = useMutation({
    mutationFn: () => api('POST', `/review/${encodeURIComponent(prId)}`, { mode }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['review', prId] }),
  });
  const copy = useMutation({
    mutationFn: () => navigator.clipboard.writeText(info.reviewRawJSON?.agenticFixPrompt ?? ''),
    onSuccess: () => {
      setCopied(true);
      setTimeout(() => setCopied(false), 2_000);
    },
  });
  const prompt = info.reviewRawJSON?.agenticFixPrompt;

  return (
    <div className="actions card">
      <InlineSelect label="Mode" value={mode} onChange={(event) => setMode(event.target.value)}>
        <option value="quick">Quick</option>
        <option value="focused">Focused</option>
        <option value="deep">Deep</option>
      </InlineSelect>
      <button type="button" className="button button-primary" onClick={() => rerun.mutate()} disabled={rerun.isPending || info.reviewStatus === 'pending'}>
        Re-run review
      </button>
      <button type="button" className="button" onClick={() => copy.mutate()} disabled={!prompt}>
        Copy fix prompt
      </button>
      <Link to="/chat" search={{ prId }} className="button">
        Ask about this pull request
      </Link>
      <span role="status" className="meta">
        {copied ? 'Fix prompt copied' : rerun.isSuccess && info.reviewStatus === 'pending' ? 'Review started' : ''}
      </span>
      <ErrorAlert error={rerun.error ?? copy.error} />
    </div>
  );
}

function Progress({ state }: { state: string | null }) {
  const current = Math.max(0, STEPS.indexOf(state ?? 'WEBHOOK_RECEIVED'));
  return (
    <section className="card progress" aria-labelledby="progress">
      <h2 id="progress">
        <span className="spinner" aria-hidden="true" /> Review in progress: {pipelineStep(state)}
      </h2>
      <ol className="steps">
        {STEPS.slice(0, 3).map((step, index) => (
          <li key={step} className={index < current ? 'done' : index === current ? 'current' : ''}>
            {pipelineStep(step)}
          </li>
        ))}
      </ol>
    </section>
  );
}
