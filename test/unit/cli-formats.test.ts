import { describe, expect, it } from 'vitest';
import { failsOn, render, type DiffReviewResult } from '../../src/cli/formats.js';

const finding = (id: string, severity: string, line: number) => ({ id, file: 'src/a.ts', line, endLine: line + 1, severity, confidence: 90, title: `${severity} thing`, comment: 'Why.', failureScenario: 'When.', suggestedFix: 'How.', replacement: null });
const result = (severities: string[]): DiffReviewResult => ({
  reviewSummary: 'Summary',
  score: 70,
  reviewRawJSON: { summary: { overview: 'Overview', intent: 'Intent', risk: 'low' }, comments: severities.map((severity, at) => finding(`f${at}`, severity, at + 1)) },
  skippedFiles: [],
  configProblems: [],
  coverage: null,
});
const context = { color: false, reviewUrl: 'http://service/review/diff/1', revision: 'abc', version: '0.1.0' };

describe('ai-review review formats and --fail-on (decisions.md §17)', () => {
  it('--fail-on: at or above the severity; none never', () => {
    const review = result(['MINOR', 'INFO']);
    expect(failsOn(review, 'none')).toBe(false);
    expect(failsOn(review, 'critical')).toBe(false);
    expect(failsOn(review, 'major')).toBe(false);
    expect(failsOn(review, 'minor')).toBe(true);
    expect(failsOn(review, 'info')).toBe(true);
    expect(failsOn(result(['CRITICAL']), 'major')).toBe(true);
    expect(failsOn(result([]), 'info')).toBe(false);
  });

  it('sarif: error for CRITICAL and MAJOR, warning for MINOR, note for INFO; a rule per severity present; the finding id as fingerprint', () => {
    const log = JSON.parse(render('sarif', result(['CRITICAL', 'MAJOR', 'MINOR', 'INFO']), context)) as { runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; level: string; partialFingerprints: Record<string, string>; locations: Array<{ physicalLocation: { region: unknown } }> }> }> };
    const [run] = log.runs;
    expect(run!.results.map((item) => `${item.ruleId}:${item.level}`)).toEqual(['ai-review/critical:error', 'ai-review/major:error', 'ai-review/minor:warning', 'ai-review/info:note']);
    expect(run!.tool.driver.rules.map((rule) => rule.id)).toEqual(['ai-review/critical', 'ai-review/major', 'ai-review/minor', 'ai-review/info']);
    expect(run!.results[0]!.partialFingerprints).toEqual({ 'aiReviewFindingId/v1': 'f0' });
    expect(run!.results[0]!.locations[0]!.physicalLocation.region).toEqual({ startLine: 1, endLine: 2 });
  });

  it('text: colour only when asked, each finding from its path:line', () => {
    const plain = render('text', result(['MAJOR']), context);
    expect(plain.split('\n')[0]).toBe('src/a.ts:1-2 MAJOR MAJOR thing');
    expect(plain).not.toContain('\x1b[');
    expect(render('text', result(['MAJOR']), { ...context, color: true })).toContain('\x1b[');
    expect(render('text', result([]), context)).toBe('No findings · score 70/100\n');
  });
});
