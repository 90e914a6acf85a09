import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/config.js';
import { generateAppKey } from '../fakes/fake-github-app.js';

let root: string;
const { privateKey } = generateAppKey();
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'config-app-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: mkdtempSync(join(root, 'data-')), ...env });

describe('GitHub App configuration (decisions.md §8)', () => {
  it('is off without its variables', () => {
    expect(load({}).github.app).toBeUndefined();
  });

  it('takes the key as PEM text with \\n escapes, or from a file', () => {
    const escaped = load({ GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY: privateKey.replaceAll('\n', '\\n'), GITHUB_APP_SLUG: 'my-review-bot' });
    expect(escaped.github.app).toEqual({ id: '123', privateKey, slug: 'my-review-bot' });
    const file = join(root, 'app.pem');
    writeFileSync(file, privateKey);
    expect(load({ GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY_FILE: file, GITHUB_APP_SLUG: 'my-review-bot' }).github.app?.privateKey).toBe(privateKey);
  });

  it.each([
    [{ GITHUB_APP_ID: '123' }, 'GITHUB_APP_PRIVATE_KEY'],
    [{ GITHUB_APP_SLUG: 'bot' }, 'GITHUB_APP_ID'],
    [{ GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY: privateKey }, 'GITHUB_APP_SLUG'],
    [{ GITHUB_APP_ID: 'abc', GITHUB_APP_PRIVATE_KEY: privateKey, GITHUB_APP_SLUG: 'bot' }, 'GITHUB_APP_ID'],
    [{ GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY: 'not a key', GITHUB_APP_SLUG: 'bot' }, 'GITHUB_APP_PRIVATE_KEY'],
    [{ GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY_FILE: '/nonexistent/app.pem', GITHUB_APP_SLUG: 'bot' }, 'GITHUB_APP_PRIVATE_KEY_FILE'],
    [{ GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY: privateKey, GITHUB_APP_SLUG: 'has spaces' }, 'GITHUB_APP_SLUG'],
  ])('stops start naming what is wrong: %o', (env, variable) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(new RegExp(variable));
  });
});
