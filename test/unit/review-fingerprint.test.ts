import { describe, expect, it } from 'vitest';
import { assignFindingIds, fingerprint } from '../../src/review/findings/fingerprint.js';

const finding = (title: string, file = 'src/a.ts', comment = 'The value can be null here.') => ({ file, title, comment });

describe('finding fingerprints', () => {
  it('are stable for the same file and title words, whatever the lines, case or plural', () => {
    expect(fingerprint(finding('Missing null check on user'))).toBe(fingerprint(finding('missing null checks for user')));
    expect(fingerprint(finding('Missing null check'))).not.toBe(fingerprint(finding('Missing null check', 'src/b.ts')));
    expect(fingerprint(finding('Missing null check'))).toMatch(/^[0-9a-f]{16}$/);
  });

  it('keeps a carried id, reuses the id of the same problem in the last review, and keeps ids unique', () => {
    const previous = [{ ...finding('Unchecked null dereference of user', 'src/a.ts', 'user may be null when the lookup misses'), id: 'old-1' }];
    const ids = assignFindingIds(
      [
        finding('Null dereference of user unchecked', 'src/a.ts', 'user may be null when the lookup misses'),
        { ...finding('Carried'), id: 'carried-1' },
        finding('SQL injection'),
        finding('SQL injection'),
      ],
      previous,
    ).map((f) => f.id);
    expect(ids[0]).toBe('old-1');
    expect(ids[1]).toBe('carried-1');
    expect(ids[2]).toBe(fingerprint(finding('SQL injection')));
    expect(ids[3]).toBe(`${fingerprint(finding('SQL injection'))}-2`);
  });
});
