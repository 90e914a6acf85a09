import { describe, expect, it } from 'vitest';
import { freeSlug, slugBase } from '../../src/services/organization-slug.js';

describe('organization slugs', () => {
  it('keeps lowercase ASCII letters and digits, one dash for anything else, accents dropped', () => {
    expect(slugBase('Acme Platform')).toBe('acme-platform');
    expect(slugBase('  Ünïcode & Co.  Platform! ')).toBe('unicode-co-platform');
    expect(slugBase('R2-D2 -- Team')).toBe('r2-d2-team');
    expect(slugBase('日本')).toBe('org');
    expect(slugBase('---')).toBe('org');
    expect(slugBase('x'.repeat(56))).toHaveLength(48);
    expect(slugBase(`${'a'.repeat(47)} b`)).toBe('a'.repeat(47));
  });

  it('takes the first free number after a taken base', () => {
    expect(freeSlug('acme', [])).toBe('acme');
    expect(freeSlug('acme', ['acme'])).toBe('acme-2');
    expect(freeSlug('acme', ['acme', 'acme-2', 'acme-4'])).toBe('acme-3');
  });
});
