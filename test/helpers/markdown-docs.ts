import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import type { Root } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';

/** The repository's root folder. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The documentation the tests keep honest: the README and every page of docs/. */
export function documentationFiles(): string[] {
  const pages = readdirSync(join(REPOSITORY_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(REPOSITORY_ROOT, 'docs', name));
  return [join(REPOSITORY_ROOT, 'README.md'), ...pages];
}

/** A path as a reader of the repository names it, for messages. */
export const shown = (path: string) => relative(REPOSITORY_ROOT, path);

const parser = unified().use(remarkParse).use(remarkGfm);

/** The Markdown syntax tree of a file, as GitHub reads it (GitHub Flavored Markdown). */
export function parseMarkdown(path: string): Root {
  return parser.parse(readFileSync(path, 'utf8'));
}

/** The anchors GitHub gives a file's headings (`#the-heading`, `-1` for a repeated one). */
export function headingAnchors(tree: Root): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  visit(tree, 'heading', (heading) => {
    anchors.add(slugger.slug(toString(heading)));
  });
  return anchors;
}

/** Every link, image and link definition's URL, with its line. */
export function linkTargets(tree: Root): { url: string; line: number }[] {
  const targets: { url: string; line: number }[] = [];
  visit(tree, (node) => {
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') {
      targets.push({ url: node.url, line: node.position?.start.line ?? 0 });
    }
  });
  return targets;
}

/** The text of every inline code span (`like this`), with its line. */
export function inlineCode(tree: Root): { value: string; line: number }[] {
  const spans: { value: string; line: number }[] = [];
  visit(tree, 'inlineCode', (node) => {
    spans.push({ value: node.value, line: node.position?.start.line ?? 0 });
  });
  return spans;
}

/** The text of every fenced or indented code block, with its first line. */
export function codeBlocks(tree: Root): { value: string; line: number }[] {
  const blocks: { value: string; line: number }[] = [];
  visit(tree, 'code', (node) => {
    blocks.push({ value: node.value, line: node.position?.start.line ?? 0 });
  });
  return blocks;
}

/** The body rows of the first table after the heading whose text is `heading`, as plain-text cells. */
export function tableUnder(tree: Root, heading: string): string[][] {
  const start = tree.children.findIndex((node) => node.type === 'heading' && toString(node) === heading);
  const table = tree.children.slice(start + 1).find((node) => node.type === 'table' || node.type === 'heading');
  if (start < 0 || table?.type !== 'table') return [];
  return table.children.slice(1).map((row) => row.children.map((cell) => toString(cell)));
}
