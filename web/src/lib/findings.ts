import type { Finding } from '../api/types.js';

export const SEVERITIES = ['CRITICAL', 'MAJOR', 'MINOR', 'INFO'] as const;

/** CRITICAL first; an unknown severity sorts last. */
export function severityRank(severity: string): number {
  const index = SEVERITIES.indexOf(severity.toUpperCase() as (typeof SEVERITIES)[number]);
  return index === -1 ? SEVERITIES.length : index;
}

export interface FileFindings {
  file: string;
  findings: Finding[];
  /** The file's most severe finding's rank, for ordering files. */
  worst: number;
}

/** Findings grouped by file, each group sorted by severity then line; files by their worst finding, then path. */
export function groupFindings(findings: readonly Finding[]): FileFindings[] {
  const byFile = new Map<string, Finding[]>();
  for (const finding of findings) byFile.set(finding.file, [...(byFile.get(finding.file) ?? []), finding]);
  return [...byFile.entries()]
    .map(([file, list]) => {
      const sorted = [...list].sort((a, b) => severityRank(a.severity) - severityRank(b.severity) || a.line - b.line);
      return { file, findings: sorted, worst: severityRank(sorted[0]!.severity) };
    })
    .sort((a, b) => a.worst - b.worst || a.file.localeCompare(b.file));
}

export function location(finding: Pick<Finding, 'file' | 'line' | 'endLine'>): string {
  return finding.endLine && finding.endLine !== finding.line ? `${finding.file}:${finding.line}-${finding.endLine}` : `${finding.file}:${finding.line}`;
}

/** A finding's element id, so `file:line` links can jump to it in the diff. */
export function findingAnchor(finding: Pick<Finding, 'file' | 'line'>): string {
  return `finding-${finding.file.replace(/[^A-Za-z0-9_-]/g, '-')}-${finding.line}`;
}
