import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

const root = mkdtempSync(join(tmpdir(), 'config-operators-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: mkdtempSync(join(root, 'data-')), ...env });

/** decisions.md §13: OPERATOR_EMAILS. */
describe('OPERATOR_EMAILS', () => {
  it('unset or empty: no list (the first account is the operator)', () => {
    expect(load({}).operatorEmails).toEqual([]);
    expect(load({ OPERATOR_EMAILS: ' ' }).operatorEmails).toEqual([]);
  });

  it('a comma-separated list, trimmed and lowercased', () => {
    expect(load({ OPERATOR_EMAILS: ' Ops@Example.com,, second@example.com ' }).operatorEmails).toEqual(['ops@example.com', 'second@example.com']);
  });

  it('something not an email stops start, naming the variable', () => {
    expect(() => load({ OPERATOR_EMAILS: 'ops@example.com, not-an-email' })).toThrow(/OPERATOR_EMAILS: must be email addresses/);
  });
});
