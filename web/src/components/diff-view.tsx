import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { forwardRef, memo, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Diff, findChangeByNewLineNumber, getChangeKey, Hunk, parseDiff, tokenize, type FileData, type HunkData } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import type { Finding } from '../api/types';
import { languageOf, refractor } from '../lib/highlight';
import { FindingCard } from './finding-card';

export interface DiffViewHandle {
  /** Scrolls to a file (virtualized: it may not be in the page yet), then to the finding. */
  showFinding: (finding: Finding) => void;
}

const filePath = (file: FileData) => (file.type === 'delete' ? file.oldPath : file.newPath);
const changedLines = (file: FileData) => file.hunks.reduce((sum, hunk) => sum + hunk.changes.length, 0);
/** Files this long start folded; the rest of the diff stays quick to scroll. */
const FOLD_LINES = 600;

/**
 * The pull request's diff, unified, with each finding under its line. Files are virtualized
 * against the window, so a 2,000-file pull request renders only what is on screen.
 */
export const DiffView = forwardRef<DiffViewHandle, { diff: string; findings: readonly Finding[] }>(function DiffView({ diff, findings }, ref) {
  const files = useMemo(() => parseDiff(diff, { nearbySequences: 'zip' }), [diff]);
  const findingsByFile = useMemo(() => {
    const map = new Map<string, Finding[]>();
    for (const finding of findings) map.set(finding.file, [...(map.get(finding.file) ?? []), finding]);
    return map;
  }, [findings]);

  const listRef = useRef<HTMLDivElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    setScrollMargin(listRef.current?.offsetTop ?? 0);
  }, []);
  const virtualizer = useWindowVirtualizer({
    count: files.length,
    estimateSize: (index) => 56 + Math.min(changedLines(files[index]!), FOLD_LINES) * 21,
    overscan: 4,
    scrollMargin,
  });

  useImperativeHandle(ref, () => ({
    showFinding: (finding) => {
      const index = files.findIndex((file) => filePath(file) === finding.file);
      if (index === -1) return;
      virtualizer.scrollToIndex(index, { align: 'start' });
      // Once the file is rendered and measured, bring the finding itself into view.
      setTimeout(() => {
        void document.getElementById(`diff-${finding.id ?? `${finding.file}:${finding.line}`}`)?.scrollIntoView({ block: 'center' });
      }, 120);
    },
  }));

  if (files.length === 0) return <p className="meta">The diff is empty.</p>;

  return (
    <div ref={listRef} className="diff-list">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const file = files[item.index]!;
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className="diff-slot"
              style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
            >
              <FileDiff file={file} findings={findingsByFile.get(filePath(file)) ?? []} />
            </div>
          );
        })}
      </div>
    </div>
  );
});

const FileDiff = memo(function FileDiff({ file, findings }: { file: FileData; findings: Finding[] }) {
  const path = filePath(file);
  const lines = changedLines(file);
  const [open, setOpen] = useState(lines <= FOLD_LINES || findings.length > 0);
  const added = file.hunks.reduce((sum, hunk) => sum + hunk.changes.filter((change) => change.type === 'insert').length, 0);
  const removed = file.hunks.reduce((sum, hunk) => sum + hunk.changes.filter((change) => change.type === 'delete').length, 0);

  const { widgets, unplaced } = useMemo(() => placeFindings(file.hunks, findings), [file.hunks, findings]);
  const tokens = useMemo(() => (open ? highlight(file.hunks, path) : undefined), [open, file.hunks, path]);

  return (
    <section className="diff-file" aria-label={`Diff of ${path}`}>
      <header className="diff-file-header">
        <span className="diff-file-path">{path}</span>
        {file.type === 'rename' || (file.oldPath !== file.newPath && file.type !== 'add' && file.type !== 'delete') ? <span className="meta"> (from {file.oldPath})</span> : null}
        <span className="diffstat">
          <span className="add">+{added}</span> <span className="del">−{removed}</span>
        </span>
        {findings.length > 0 ? <span className="badge badge-findings">{findings.length} finding{findings.length === 1 ? '' : 's'}</span> : null}
        {lines > FOLD_LINES ? (
          <button type="button" className="button button-small" onClick={() => setOpen(!open)} aria-expanded={open}>
            {open ? 'Fold' : `Show ${lines} lines`}
          </button>
        ) : null}
      </header>
      {unplaced.length > 0 ? (
        <div className="diff-unplaced">
          {unplaced.map((finding, index) => (
            <FindingCard key={finding.id ?? index} finding={finding} compact anchor />
          ))}
        </div>
      ) : null}
      {file.isBinary ? <p className="meta diff-note">Binary file</p> : null}
      {open && file.hunks.length > 0 ? (
        <Diff viewType="unified" diffType={file.type} hunks={file.hunks} widgets={widgets} tokens={tokens} optimizeSelection>
          {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
        </Diff>
      ) : null}
    </section>
  );
});

/** Each finding under the change at its line (the new side); those outside the diff's lines go above the file. */
function placeFindings(hunks: HunkData[], findings: readonly Finding[]) {
  const grouped: Record<string, Finding[]> = {};
  const unplaced: Finding[] = [];
  for (const finding of findings) {
    const change = findChangeByNewLineNumber(hunks, finding.endLine ?? finding.line) ?? findChangeByNewLineNumber(hunks, finding.line);
    if (change === undefined) unplaced.push(finding);
    else (grouped[getChangeKey(change)] ??= []).push(finding);
  }
  const widgets: Record<string, ReactNode> = {};
  for (const [key, list] of Object.entries(grouped)) {
    widgets[key] = (
      <div className="diff-widget">
        {list.map((finding, index) => (
          <FindingCard key={finding.id ?? index} finding={finding} compact anchor />
        ))}
      </div>
    );
  }
  return { widgets, unplaced };
}

function highlight(hunks: HunkData[], path: string) {
  const language = languageOf(path);
  if (language === undefined) return undefined;
  try {
    return tokenize(hunks, { highlight: true, refractor, language });
  } catch {
    return undefined;
  }
}
