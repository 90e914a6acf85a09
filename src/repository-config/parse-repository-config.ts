import { isMap, isScalar, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import type { z } from 'zod';
import { DEFAULT_REPOSITORY_CONFIG, REVIEW_KEYS, type ConfigProblem, type RepositoryConfig, type ReviewKey } from './repository-config-schema.js';

/** Bigger files are not read: a configuration this size is a mistake, not settings. */
export const MAX_CONFIG_BYTES = 64 * 1024;

/**
 * Reads `.ai-review.yml`. Never throws: a broken file, an unknown key or a bad value is named as a
 * problem with its line, and what is wrong takes its default while the valid keys apply.
 */
export function parseRepositoryConfig(text: string): RepositoryConfig {
  const config: RepositoryConfig = { ...DEFAULT_REPOSITORY_CONFIG, present: true, problems: [] };
  const problems = config.problems;
  if (Buffer.byteLength(text, 'utf8') > MAX_CONFIG_BYTES) {
    problems.push({ line: 1, message: `The file is larger than ${MAX_CONFIG_BYTES / 1024} KiB and was ignored` });
    return config;
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number | undefined) => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  const nodeLine = (node: Node | null | undefined) => lineOf(node?.range?.[0]);

  if (document.errors.length > 0) {
    for (const error of document.errors) problems.push({ line: lineOf(error.pos[0]), message: `Invalid YAML: ${firstLine(error.message)}` });
    return config;
  }
  const root = document.contents;
  if (root === null || (isScalar(root) && root.value === null)) return config;
  if (!isMap(root)) {
    problems.push({ line: nodeLine(root), message: 'The file must be a mapping with a `reviews` key' });
    return config;
  }

  for (const pair of root.items as Array<Pair<Node, Node | null>>) {
    const key = keyName(pair);
    if (key !== 'reviews') {
      problems.push({ line: nodeLine(pair.key), message: `Unknown key "${key}" (ignored); the settings go under "reviews"` });
      continue;
    }
    if (pair.value === null || (isScalar(pair.value) && pair.value.value === null)) continue;
    if (!isMap(pair.value)) {
      problems.push({ line: nodeLine(pair.value), message: '"reviews" must be a mapping of settings' });
      continue;
    }
    for (const item of pair.value.items as Array<Pair<Node, Node | null>>) readReviewKey(item, config, problems, nodeLine);
  }
  return config;
}

function readReviewKey(pair: Pair<Node, Node | null>, config: RepositoryConfig, problems: ConfigProblem[], nodeLine: (node: Node | null | undefined) => number) {
  const key = keyName(pair);
  if (!(key in REVIEW_KEYS)) {
    problems.push({ line: nodeLine(pair.key), message: `Unknown key "reviews.${key}" (ignored)` });
    return;
  }
  const schema: z.ZodType = REVIEW_KEYS[key as ReviewKey];
  const parsed = schema.safeParse(pair.value?.toJSON() ?? null);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const where = ['reviews', key, ...issue.path.map(String)].join('.');
      problems.push({ line: nodeLine(nodeAt(pair.value, issue.path) ?? pair.value ?? pair.key), message: `${where}: ${issue.message}; reviews.${key} keeps its default` });
    }
    return;
  }
  assign(config, key as ReviewKey, parsed.data);
}

function assign(config: RepositoryConfig, key: ReviewKey, value: unknown) {
  const v = value as never;
  if (key === 'inline_min_severity') config.inlineMinSeverity = v;
  else config[key] = v;
}

/** The node a zod issue path points to, for its line. */
function nodeAt(node: Node | null | undefined, path: readonly PropertyKey[]): Node | undefined {
  let current: unknown = node;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !('get' in current) || typeof current.get !== 'function') return undefined;
    current = (current as { get(key: unknown, keepScalar: boolean): unknown }).get(segment, true);
  }
  return current !== null && typeof current === 'object' ? (current as Node) : undefined;
}

function keyName(pair: Pair<Node, Node | null>): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
