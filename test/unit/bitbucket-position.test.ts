import { describe, expect, it } from 'vitest';
import { RetryLaterError, UnrecoverableJobError } from '../../src/adapters/queue/job-queue.js';
import { bitbucketJobFailure } from '../../src/code-hosts/bitbucket/bitbucket-failure.js';
import { BitbucketApiError, BitbucketConnectionBrokenError, BitbucketDiffTooLargeError, BitbucketRateLimitedError, BitbucketUnreachableError } from '../../src/code-hosts/bitbucket/bitbucket-errors.js';
import { inlineAnchors } from '../../src/code-hosts/bitbucket/bitbucket-position.js';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';

const DIFF = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,2 +1,4 @@',
  ' const a = 1;',
  '+const b = 2;',
  '+const c = 3;',
  '-export { a };',
  '+export { a, b, c };',
  '@@ -10,2 +11,2 @@',
  ' const z = 26;',
  '-old();',
  '+fresh();',
  'diff --git a/gone.ts b/gone.ts',
  'deleted file mode 100644',
  'index 3333333..0000000',
  '--- a/gone.ts',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-bye',
  '',
].join('\n');

describe('inline anchors on a Bitbucket diff', () => {
  const anchor = inlineAnchors(parseUnifiedDiff(DIFF));

  it('anchor `to` on the last line when it is added or unchanged, with `start_to` for a span inside the diff', () => {
    expect(anchor({ file: 'src/a.ts', line: 2, endLine: 2 })).toEqual({ path: 'src/a.ts', to: 2 });
    expect(anchor({ file: 'src/a.ts', line: 1, endLine: 1 })).toEqual({ path: 'src/a.ts', to: 1 });
    expect(anchor({ file: 'src/a.ts', line: 2, endLine: 4 })).toEqual({ path: 'src/a.ts', to: 4, startTo: 2 });
    expect(anchor({ file: 'src/a.ts', line: 11, endLine: 12 })).toEqual({ path: 'src/a.ts', to: 12, startTo: 11 });
  });

  it('keep the last line alone when the span starts outside the diff', () => {
    expect(anchor({ file: 'src/a.ts', line: 8, endLine: 11 })).toEqual({ path: 'src/a.ts', to: 11 });
  });

  it('give none for a line outside the diff, a file not in it, or a deleted file (the finding goes to the summary)', () => {
    expect(anchor({ file: 'src/a.ts', line: 6, endLine: 6 })).toBeUndefined();
    expect(anchor({ file: 'src/b.ts', line: 1, endLine: 1 })).toBeUndefined();
    expect(anchor({ file: 'gone.ts', line: 1, endLine: 1 })).toBeUndefined();
  });
});

describe("a Bitbucket failure back to the queue", () => {
  it('waits on a 429, ends on a refused token, a too-large diff or a 404, retries the rest', () => {
    const limited = new BitbucketRateLimitedError('Bitbucket rate limit', 60_000);
    expect(bitbucketJobFailure(limited)).toBe(limited);
    expect(bitbucketJobFailure(limited)).toBeInstanceOf(RetryLaterError);
    expect(bitbucketJobFailure(new BitbucketConnectionBrokenError(401, 'Token is invalid'))).toBeInstanceOf(UnrecoverableJobError);
    expect(bitbucketJobFailure(new BitbucketDiffTooLargeError(555, 'too large'))).toBeInstanceOf(UnrecoverableJobError);
    expect(bitbucketJobFailure(new BitbucketApiError(404, 'Repository not found'))).toBeInstanceOf(UnrecoverableJobError);
    const server = bitbucketJobFailure(new BitbucketApiError(502, 'Bad gateway'));
    expect(server).not.toBeInstanceOf(UnrecoverableJobError);
    expect(server.message).toBe('Bitbucket answered 502 Bad gateway');
    const unreachable = new BitbucketUnreachableError('down');
    expect(bitbucketJobFailure(unreachable)).toBe(unreachable);
  });
});
