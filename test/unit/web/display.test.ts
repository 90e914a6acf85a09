import { describe, expect, it } from 'vitest';
import { joinPages, nextCursor } from '../../../web/src/lib/cursors.js';
import { groupFindings, location, severityRank } from '../../../web/src/lib/findings.js';
import { ago, allowanceText, pipelineStep, scoreDisplay, usd } from '../../../web/src/lib/format.js';
import { changeNumber, hostName, repositoryOf } from '../../../web/src/lib/repository.js';
import { safeRedirect } from '../../../web/src/lib/safe-redirect.js';

describe('score and money as the app shows them', () => {
  it('rounds scores and gives each a tone; no score is a dash', () => {
    expect(scoreDisplay(87.49)).toEqual({ text: '87', tone: 'good' });
    expect(scoreDisplay(85)).toEqual({ text: '85', tone: 'good' });
    expect(scoreDisplay(70)).toEqual({ text: '70', tone: 'fair' });
    expect(scoreDisplay(50)).toEqual({ text: '50', tone: 'poor' });
    expect(scoreDisplay(null)).toEqual({ text: '–', tone: 'none' });
    expect(scoreDisplay(Number.NaN)).toEqual({ text: '–', tone: 'none' });
  });

  it('writes the allowance as $X.XX of $Y.YY', () => {
    expect(allowanceText(0, 0.3)).toBe('$0.00 of $0.30');
    expect(allowanceText(0.123456, 0.3)).toBe('$0.12 of $0.30');
    expect(allowanceText(0.005, 5)).toBe('$0.01 of $5.00');
    expect(usd(12.5)).toBe('$12.50');
  });

  it('names the pipeline states, and dates relative to now', () => {
    expect(pipelineStep('PR_CONTENT_EXTRACTED')).toBe('The model is reviewing');
    expect(pipelineStep(null)).toBe('Pending');
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(ago('2026-03-01T11:59:40Z', now)).toBe('just now');
    expect(ago('2026-03-01T09:00:00Z', now)).toBe('3 hours ago');
    expect(ago(null, now)).toBe('–');
  });
});

describe('findings', () => {
  const finding = (file: string, line: number, severity: string) => ({ file, line, severity, title: `${severity} at ${line}`, comment: '' });

  it('groups by file, most severe first, then by line; files by their worst finding', () => {
    const groups = groupFindings([finding('b.ts', 9, 'MINOR'), finding('a.ts', 3, 'INFO'), finding('b.ts', 2, 'CRITICAL'), finding('b.ts', 1, 'MINOR'), finding('c.ts', 1, 'odd')]);
    expect(groups.map((group) => group.file)).toEqual(['b.ts', 'a.ts', 'c.ts']);
    expect(groups[0]!.findings.map((item) => `${item.severity}:${item.line}`)).toEqual(['CRITICAL:2', 'MINOR:1', 'MINOR:9']);
    expect(severityRank('major')).toBe(1);
  });

  it('writes file:line, with a range when the finding spans lines', () => {
    expect(location({ file: 'src/a.ts', line: 3 })).toBe('src/a.ts:3');
    expect(location({ file: 'src/a.ts', line: 3, endLine: 3 })).toBe('src/a.ts:3');
    expect(location({ file: 'src/a.ts', line: 3, endLine: 7 })).toBe('src/a.ts:3-7');
  });

  it('reads the repository from the pull request’s GitHub address', () => {
    expect(repositoryOf('https://github.com/acme/api/pull/12')).toBe('acme/api');
    expect(repositoryOf(null)).toBeUndefined();
  });

  it('reads the project from a merge request’s GitLab address, names the host and numbers a merge request with !', () => {
    expect(repositoryOf('https://gitlab.com/group/sub/project/-/merge_requests/5')).toBe('group/sub/project');
    expect(repositoryOf('https://git.example.com/gitlab/team/app/-/merge_requests/7')).toBe('gitlab/team/app');
    expect([hostName('gitlab'), hostName('github'), changeNumber('gitlab', 5), changeNumber('github', 12)]).toEqual(['GitLab', 'GitHub', '!5', '#12']);
  });

  it('reads the repository from a Bitbucket pull request’s address (links.html.href), names the host and numbers it with #', () => {
    expect(repositoryOf('https://bitbucket.org/acme/widgets/pull-requests/7')).toBe('acme/widgets');
    expect(repositoryOf('https://bitbucket.org/acme/widgets/pull-requests/7/diff')).toBe('acme/widgets');
    expect(repositoryOf('https://bitbucket.org/acme/widgets/pull-request/7')).toBeUndefined();
    expect([hostName('bitbucket'), changeNumber('bitbucket', 7)]).toEqual(['Bitbucket', '#7']);
  });
});

describe('cursors', () => {
  const item = (id: number, updatedAt: string) => ({ id, updatedAt });

  it('asks for a next page only after a full one, from its last item', () => {
    const full = Array.from({ length: 20 }, (_, i) => item(i, `t${i}`));
    expect(nextCursor(full, 20, (entry) => entry.updatedAt)).toBe('t19');
    expect(nextCursor(full.slice(0, 19), 20, (entry) => entry.updatedAt)).toBeUndefined();
    expect(nextCursor([], 20, (entry: { updatedAt: string }) => entry.updatedAt)).toBeUndefined();
  });

  it('joins pages without the item an inclusive cursor repeats', () => {
    const pages = [[item(1, 'c'), item(2, 'b')], [item(2, 'b'), item(3, 'a')]];
    expect(joinPages(pages, (entry) => entry.id).map((entry) => entry.id)).toEqual([1, 2, 3]);
  });
});

describe('where to go after signing in', () => {
  it.each([
    ['/pulls/12?tab=diff#f', '/pulls/12?tab=diff#f'],
    ['/settings/review', '/settings/review'],
    ['//evil.example/x', '/'],
    ['https://evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['/login', '/'],
    ['/signup?x=1', '/'],
    ['/pulls\n', '/'],
    [undefined, '/'],
  ])('%s → %s', (target, expected) => {
    expect(safeRedirect(target)).toBe(expected);
  });
});
