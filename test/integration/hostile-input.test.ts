import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAiProvider } from '../fakes/fake-ai-providers.js';
import { FakeGitHubApp } from '../fakes/fake-github-app.js';
import { signInWithGitHub } from '../helpers/github-login.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';
import { examplePayload } from '../helpers/webhooks.js';

/**
 * Every route of the OpenAPI document, fed hostile input built from its own schemas: NUL and
 * unpaired surrogates (decisions.md §7), numbers beyond double range, deep nesting, wrong types
 * and no-op bodies. No answer may be a 5xx. A new route is covered by being in the document.
 */

type JsonSchema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
  minLength?: number;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
};
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema?: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const NUL = 'a\u0000b';
const LONE_SURROGATES = ['\ud800', 'x\udc00y'];
/** Parses to Infinity; spliced into the JSON text in place of this marker. */
const HUGE_MARKER = '__HUGE_NUMBER__';
const HUGE = '1e999999';
const DEEP = 20_000;
const deepArray = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
const deepObject = () => {
  let value: unknown = 'x';
  for (let depth = 0; depth < 2_000; depth++) value = { a: value };
  return value;
};
const WRONG_TYPES: unknown[] = [null, true, -1, 1.5, 'x'.repeat(100_000), [], {}, [[['nested']]]];

/** A valid-looking value for a schema: the baseline each hostile case changes in one place. */
function sample(schema: JsonSchema | undefined, doc: OpenApiDocument, depth = 0): unknown {
  if (schema === undefined || depth > 8) return 'x';
  if (schema.$ref) return sample(doc.components?.schemas?.[schema.$ref.split('/').pop()!], doc, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  const alternatives = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (alternatives?.length) return sample(alternatives.find((option) => option.type !== 'null') ?? alternatives[0], doc, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((option) => option !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, property]) => [key, sample(property, doc, depth + 1)]));
    case 'array':
      return [sample(schema.items, doc, depth + 1)];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'email') return `hostile-${randomUUID()}@example.com`;
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'uri') return 'https://example.com';
      if (schema.pattern === '^\\d{6}$') return '123456';
      return 'x'.repeat(Math.max(8, schema.minLength ?? 1));
  }
}

type Path = Array<string | number>;

/** Where the strings and numbers of a value sit (the first 40 of each, so a GitHub payload stays affordable). */
function leaves(value: unknown, path: Path = [], found: { strings: Path[]; numbers: Path[]; all: Path[] } = { strings: [], numbers: [], all: [] }) {
  if (Array.isArray(value)) value.forEach((item, index) => leaves(item, [...path, index], found));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) leaves(item, [...path, key], found);
  else {
    if (typeof value === 'string' && found.strings.length < 40) found.strings.push(path);
    if (typeof value === 'number' && found.numbers.length < 40) found.numbers.push(path);
    if (path.length > 0 && found.all.length < 40) found.all.push(path);
  }
  return found;
}

function replaced(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  target[path.at(-1)!] = replacement;
  return copy;
}

/** Every string at once: the webhook case of a payload whose title, action and branches all hold NUL. */
function everyString(value: unknown, replacement: (text: string) => string): unknown {
  if (typeof value === 'string') return replacement(value);
  if (Array.isArray(value)) return value.map((item) => everyString(item, replacement));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, everyString(item, replacement)]));
  return value;
}

const json = (value: unknown) => JSON.stringify(value).replaceAll(`"${HUGE_MARKER}"`, HUGE);

interface HostileCase {
  name: string;
  url: string;
  body?: string;
}

/** The hostile cases of one route: its path, query and body each attacked from a valid baseline. */
function hostileCases(path: string, operation: Operation, doc: OpenApiDocument, bodyBaseline: unknown): HostileCase[] {
  const parameters = operation.parameters ?? [];
  const pathParams = parameters.filter((parameter) => parameter.in === 'path');
  const queryParams = parameters.filter((parameter) => parameter.in === 'query');
  const pathValues = Object.fromEntries(pathParams.map((parameter) => [parameter.name, String(PATH_EXAMPLES[parameter.name] ?? sample(parameter.schema, doc))]));
  const queryValues = Object.fromEntries(queryParams.map((parameter) => [parameter.name, String(sample(parameter.schema, doc))]));
  const url = (paths: Record<string, string>, query: Record<string, string>) => {
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => paths[name] ?? 'x');
    const search = Object.entries(query)
      .map(([name, value]) => `${encodeURIComponent(name)}=${value}`)
      .join('&');
    return search ? `${filled}?${search}` : filled;
  };
  const encoded = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, encodeURIComponent(value)]));
  const baseUrl = url(encoded(pathValues), encoded(queryValues));
  const baseBody = bodyBaseline === undefined ? undefined : json(bodyBaseline);

  // Raw percent-encodings: NUL, an unpaired surrogate's UTF-8 form (invalid UTF-8), Infinity, a long value.
  const rawValues = ['%00', 'a%00b', '%ED%A0%80', HUGE, '-1', '%7B%7D', 'x'.repeat(5_000)];
  const cases: HostileCase[] = [{ name: 'baseline', url: baseUrl, body: baseBody }];
  for (const parameter of pathParams) {
    for (const raw of rawValues) cases.push({ name: `path ${parameter.name}=${raw.slice(0, 12)}`, url: url({ ...encoded(pathValues), [parameter.name]: raw }, encoded(queryValues)), body: baseBody });
  }
  for (const parameter of [...queryParams, { name: 'unknownParameter' }]) {
    for (const raw of [...rawValues, `a&${encodeURIComponent(parameter.name)}=b`]) {
      cases.push({ name: `query ${parameter.name}=${raw.slice(0, 12)}`, url: url(encoded(pathValues), { ...encoded(queryValues), [parameter.name]: raw }), body: baseBody });
    }
  }
  if (bodyBaseline !== undefined) {
    const found = leaves(bodyBaseline);
    for (const leaf of found.strings) {
      for (const text of [NUL, ...LONE_SURROGATES]) cases.push({ name: `body ${leaf.join('.')} holds ${JSON.stringify(text)}`, url: baseUrl, body: json(replaced(bodyBaseline, leaf, text)) });
    }
    for (const text of [NUL, ...LONE_SURROGATES]) cases.push({ name: `every body string holds ${JSON.stringify(text)}`, url: baseUrl, body: json(everyString(bodyBaseline, (value) => `${value}${text}`)) });
    cases.push({ name: 'a body key holds NUL', url: baseUrl, body: json({ ...(bodyBaseline as object), 'k\u0000': 'v' }) });
    for (const leaf of found.numbers) cases.push({ name: `body ${leaf.join('.')} is ${HUGE}`, url: baseUrl, body: json(replaced(bodyBaseline, leaf, HUGE_MARKER)) });
    for (const leaf of found.all) {
      for (const wrong of WRONG_TYPES) cases.push({ name: `body ${leaf.join('.')} is ${JSON.stringify(wrong).slice(0, 12)}`, url: baseUrl, body: json(replaced(bodyBaseline, leaf, wrong)) });
      cases.push({ name: `body ${leaf.join('.')} is deeply nested`, url: baseUrl, body: json(replaced(bodyBaseline, leaf, deepObject())) });
    }
  }
  for (const body of ['{}', '{"unknownField":1}', 'null', '[]', '"x"', HUGE, deepArray, `{"a":${deepArray}}`, JSON.stringify(NUL)]) {
    cases.push({ name: `body ${body.slice(0, 16)}`, url: baseUrl, body });
  }
  return cases;
}

/** Path parameters whose sample would only meet a 404 before the interesting code. */
const PATH_EXAMPLES: Record<string, string> = { tab: 'aiSettings' };

describe('hostile input on every route of the OpenAPI document', () => {
  let world: ReviewWorld;
  let doc: OpenApiDocument;
  const providers: FakeAiProvider[] = [];
  beforeAll(async () => {
    // Every dependency answers, so a 5xx can only be the service's own fault.
    const flavors = ['openai', 'anthropic', 'google', 'openrouter'] as const;
    for (const flavor of flavors) providers.push(await FakeAiProvider.start(flavor));
    // The GitHub App too, so /github/install has what it needs.
    const github = new FakeGitHubApp();
    world = await reviewWorld({ ...github.env(), ...Object.fromEntries(flavors.map((flavor, index) => [`BYOK_${flavor.toUpperCase()}_BASE_URL`, providers[index]!.url])) }, github);
    doc = (await world.t.app.inject({ method: 'GET', url: '/docs/json' })).json<OpenApiDocument>();
  });
  afterAll(async () => {
    await world.close();
    for (const provider of providers) await provider.stop();
  });

  it('covers the routes the service has', () => {
    const routes = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(routes.length).toBeGreaterThanOrEqual(40);
    expect(routes).toEqual(expect.arrayContaining(['POST /webhook/', 'PATCH /byok/providers/{providerId}', 'GET /pull-request/list', 'PATCH /workspace/{tab}']));
  });

  it('answers every hostile request without a 5xx', { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (path.startsWith('/docs')) continue;
      for (const [method, operation] of Object.entries(methods)) {
        // A fresh author per route: some routes sign out or delete the account they are called with.
        const author = await signInWithGitHub(world.t.app, world.github);
        const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
        // The webhook's body is validated by the service, not the route: a real GitHub payload of the caller's.
        const bodyBaseline = path === '/webhook/' && method === 'post' ? examplePayload({ authorId: author.githubId }) : bodySchema === undefined ? undefined : sample(bodySchema, doc);
        for (const hostile of hostileCases(path, operation, doc, bodyBaseline)) {
          const request: InjectOptions = {
            method: method.toUpperCase() as InjectOptions['method'],
            url: hostile.url,
            headers: { cookie: author.cookie, 'x-github-event': 'pull_request', ...(hostile.body === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(hostile.body === undefined ? {} : { payload: hostile.body }),
          };
          const response = await world.t.app.inject(request);
          sent++;
          if (response.statusCode >= 500) failures.push(`${method.toUpperCase()} ${path} [${hostile.name}]: ${response.statusCode} ${response.body.slice(0, 200)}`);
        }
      }
    }
    expect(sent).toBeGreaterThan(1_000);
    expect(failures).toEqual([]);
  });

  it('names the field holding NUL or an unpaired surrogate in a 400', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const headers = { cookie: author.cookie };
    const patch = await world.t.app.inject({ method: 'PATCH', url: '/users', headers, payload: { name: 'Ada\u0000' } });
    expect(patch.statusCode).toBe(400);
    expect(patch.json()).toMatchObject({ message: 'Invalid body: body.name must not contain NUL or unpaired surrogate characters', details: [{ path: 'body.name' }] });
    const search = await world.t.app.inject({ method: 'GET', url: '/pull-request/list?search=a%00b', headers });
    expect(search.json()).toMatchObject({ statusCode: 400, details: [{ path: 'query.search' }] });
    const param = await world.t.app.inject({ method: 'DELETE', url: '/byok/providers/x%00', headers });
    expect(param.json()).toMatchObject({ statusCode: 400, details: [{ path: 'params.providerId' }] });
    const surrogate = await world.t.app.inject({ method: 'POST', url: '/workspace/aiSettings', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify({ systemPrompt: 'ok \ud800' }) });
    expect(surrogate.json()).toMatchObject({ statusCode: 400, details: [{ path: 'body.systemPrompt' }] });
  });

  it('answers a PATCH that changes nothing with a 400 on every router', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const registered = await world.t.app.inject({ method: 'POST', url: '/workspace/aiSettings', headers: { cookie: author.cookie }, payload: {} });
    expect(registered.statusCode).toBe(201);
    for (const url of ['/users', '/workspace/aiSettings', '/byok/providers', `/byok/providers/${randomUUID()}`, '/byok/providers/openai', '/conversation/feedback']) {
      for (const payload of [{}, { unknownField: 1 }]) {
        const response = await world.t.app.inject({ method: 'PATCH', url, headers: { cookie: author.cookie }, payload });
        expect(response.statusCode, `${url} ${JSON.stringify(payload)}: ${response.body}`).toBe(400);
      }
    }
  });
});
