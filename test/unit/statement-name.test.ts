import { describe, expect, it } from 'vitest';
import { statementName } from '../../src/db/statement-cache.js';

describe('a prepared statement’s name', () => {
  it('stays as written when PostgreSQL keeps it whole', () => {
    expect(statementName('pull_requests_page_org_desc')).toBe('pull_requests_page_org_desc');
  });

  it('fits 63 characters when longer, and two names alike in their first 63 stay apart', () => {
    const long = 'pull_requests_page_visible_desc_status_repositories_pattern_cursor';
    const twin = `${long}_asc`;
    for (const name of [long, twin]) {
      expect(statementName(name).length).toBeLessThanOrEqual(63);
      expect(statementName(name).startsWith('pull_requests_page_visible_desc')).toBe(true);
    }
    expect(statementName(long)).not.toBe(statementName(twin));
    expect(statementName(long)).toBe(statementName(long));
  });
});
