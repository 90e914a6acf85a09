import { describe, expect, it } from 'vitest';
import { withCarried } from '../../src/review/findings/carry-over.js';
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

describe('a carried finding reported again', () => {
  const carried = { id: 'carried-1', file: 'src/math.ts', line: 11, endLine: 11, title: 'clamp does not check min <= max', comment: 'min may exceed max' };

  it('is the carried finding: its id, the fresh lines and words, no second copy', () => {
    const fresh = { file: 'src/math.ts', line: 11, endLine: 12, title: 'Clamp does not check that min <= max', comment: 'min may exceed max' };
    const joined = assignFindingIds(withCarried([fresh], [carried]), [carried]);
    expect(joined).toEqual([{ ...fresh, id: 'carried-1' }]);
  });

  it('is not joined to a carried finding of another file, another place or another problem', () => {
    const others = [
      { file: 'src/other.ts', line: 11, endLine: 11, title: carried.title, comment: carried.comment },
      { file: 'src/math.ts', line: 40, endLine: 40, title: carried.title, comment: carried.comment },
      { file: 'src/math.ts', line: 11, endLine: 11, title: 'Division by zero on an empty list', comment: 'values.length may be 0' },
    ];
    const joined = withCarried(others, [carried]);
    expect(joined).toHaveLength(4);
    expect(joined.filter((finding) => 'id' in finding && finding.id === 'carried-1')).toEqual([carried]);
  });
});
