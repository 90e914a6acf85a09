import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config/env-schema.js';
import { inlineCode, parseMarkdown, REPOSITORY_ROOT } from '../helpers/markdown-docs.js';

const CONFIG_DIR = join(REPOSITORY_ROOT, 'src', 'config');
/** The `ai-review` command reads its own variables, from the `env` it is given. */
const CLI_DIR = join(REPOSITORY_ROOT, 'src', 'cli');
const OPERATIONS = join(REPOSITORY_ROOT, 'docs', 'operations.md');

/**
 * The variables a TypeScript source reads from `process.env` by name (`process.env.X`,
 * `process.env['X']`), found in its syntax tree.
 */
function processEnvReads(source: string, { bareEnv = false } = {}): string[] {
  const file = ts.createSourceFile('source.ts', source, ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  const isProcessEnv = (node: ts.Node) =>
    (bareEnv && ts.isIdentifier(node) && node.text === 'env') ||
    (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'process' && node.name.text === 'env');
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && isProcessEnv(node.expression)) names.push(node.name.text);
    if (ts.isElementAccessExpression(node) && isProcessEnv(node.expression) && ts.isStringLiteralLike(node.argumentExpression)) {
      names.push(node.argumentExpression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** Every variable the configuration reads (the zod schema's keys, any direct read under src/config), and the command line's. */
function configuredVariables(): Set<string> {
  const reads = (dir: string, options?: { bareEnv: boolean }) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) => processEnvReads(readFileSync(join(dir, name), 'utf8'), options));
  return new Set([...Object.keys(envSchema.shape), ...reads(CONFIG_DIR), ...reads(CLI_DIR, { bareEnv: true })]);
}

/**
 * The variable a code span names, if any: `NAME`, `NAME=value`, `$NAME` or `NAME/path`, where the
 * name is upper case with an underscore, or one of the configuration's own names (`PORT`, `ROLE`).
 * Upper-case words that are not variables (`GET`, `CONCURRENTLY`) have no underscore and are not
 * configuration names, so they are not taken for one.
 */
function variableNamed(span: string, known: Set<string>): string | undefined {
  const match = /^\$?([A-Z][A-Z0-9_]*)(?=$|[=/\s:,])/.exec(span);
  const name = match?.[1];
  if (name === undefined) return undefined;
  return name.includes('_') || known.has(name) ? name : undefined;
}

describe('the environment variables in docs/operations.md', () => {
  const variables = configuredVariables();
  const documented = new Map<string, number>();
  for (const { value, line } of inlineCode(parseMarkdown(OPERATIONS))) {
    const name = variableNamed(value, variables);
    if (name !== undefined && !documented.has(name)) documented.set(name, line);
  }

  it('reads the configuration from the code', () => {
    expect(variables.size).toBeGreaterThan(30);
    expect(variables).toContain('DATABASE_URL');
  });

  it('documents every variable the configuration reads', () => {
    expect([...variables].filter((name) => !documented.has(name)).sort()).toEqual([]);
  });

  it('documents no variable the configuration does not read', () => {
    const unknown = [...documented].filter(([name]) => !variables.has(name)).map(([name, line]) => `${name} (line ${line})`);
    expect(unknown).toEqual([]);
  });

  it('tells a variable from other code spans', () => {
    const known = new Set(['PORT', 'NODE_ENV', 'METRICS_TOKEN', 'DATA_DIR']);
    expect(variableNamed('NODE_ENV=production', known)).toBe('NODE_ENV');
    expect(variableNamed('PORT', known)).toBe('PORT');
    expect(variableNamed('$METRICS_TOKEN', known)).toBe('METRICS_TOKEN');
    expect(variableNamed('DATA_DIR/encryption.key', known)).toBe('DATA_DIR');
    expect(variableNamed('SOME_OTHER_VARIABLE', known)).toBe('SOME_OTHER_VARIABLE');
    expect(variableNamed('CONCURRENTLY', known)).toBeUndefined();
    expect(variableNamed('GET /metrics', known)).toBeUndefined();
    expect(variableNamed('Authorization: Bearer $METRICS_TOKEN', known)).toBeUndefined();
    expect(processEnvReads("const a = process.env.FOO; const b = process.env['BAR']; const c = env.BAZ;")).toEqual(['FOO', 'BAR']);
    expect(processEnvReads("const a = process.env.FOO; const c = env.BAZ;", { bareEnv: true })).toEqual(['FOO', 'BAZ']);
  });
});
