import { describe, expect, it } from 'vitest';
import { grammarFor } from '../../src/code-context/grammars.js';
import { PARSED_LANGUAGES } from '../../src/code-context/outline-types.js';

// A file of its own: the grammars must not have been loaded by another test of the same module graph.
describe('grammars', () => {
  it('every language loads when all are asked for at once (a chunk of many languages, the first review of a process)', async () => {
    const loaded = await Promise.allSettled(PARSED_LANGUAGES.map((language) => grammarFor(language)));
    expect(loaded.map((result, at) => `${PARSED_LANGUAGES[at]}: ${result.status === 'fulfilled' ? 'ok' : String(result.reason)}`)).toEqual(PARSED_LANGUAGES.map((language) => `${language}: ok`));
  });
});
