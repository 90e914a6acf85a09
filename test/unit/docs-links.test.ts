import { existsSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationFiles, headingAnchors, linkTargets, parseMarkdown, REPOSITORY_ROOT, shown } from '../helpers/markdown-docs.js';

/** A URL with a scheme (`https:`, `mailto:`) or protocol-relative points outside the repository. */
const external = (url: string) => /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//');

/** What is wrong with one relative link of `from`, or undefined when it resolves. */
function brokenLink(from: string, url: string): string | undefined {
  const hash = url.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? url : url.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(url.slice(hash + 1));
  const target = pathPart === '' ? from : resolve(dirname(from), pathPart);
  if (target !== REPOSITORY_ROOT.replace(/\/$/, '') && !target.startsWith(REPOSITORY_ROOT)) {
    return `${url}: leaves the repository (a reader of the repository cannot open it)`;
  }
  if (!existsSync(target)) return `${url}: ${shown(target)} does not exist`;
  if (anchor === undefined) return undefined;
  if (!target.endsWith('.md') || statSync(target).isDirectory()) {
    return `${url}: an anchor into ${shown(target)}, which is not a Markdown page`;
  }
  const anchors = headingAnchors(parseMarkdown(target));
  if (!anchors.has(anchor)) return `${url}: ${shown(target)} has no heading #${anchor}`;
  return undefined;
}

describe('the documentation links', () => {
  const files = documentationFiles();

  it('covers the README and every page of docs/', () => {
    expect(files.map(shown)).toContain('README.md');
    expect(files.filter((file) => file.includes(`${sep}docs${sep}`)).length).toBeGreaterThan(3);
  });

  it.each(files.map((file) => [shown(file), file]))('%s: every relative link and anchor resolves', (_name, file) => {
    const broken = linkTargets(parseMarkdown(file))
      .filter(({ url }) => !external(url))
      .map(({ url, line }) => {
        const problem = brokenLink(file, url);
        return problem === undefined ? undefined : `line ${line}: ${problem}`;
      })
      .filter((problem) => problem !== undefined);
    expect(broken).toEqual([]);
  });

  it('finds a broken file, a broken anchor and a link out of the repository', () => {
    const readme = files[0]!;
    expect(brokenLink(readme, 'docs/operations.md#environment-variables')).toBeUndefined();
    expect(brokenLink(readme, 'docs/no-such-page.md')).toMatch(/does not exist/);
    expect(brokenLink(readme, 'docs/operations.md#no-such-heading')).toMatch(/has no heading/);
    expect(brokenLink(readme, '#no-such-heading')).toMatch(/has no heading/);
    expect(brokenLink(readme, '../outside.md')).toMatch(/leaves the repository/);
  });
});
