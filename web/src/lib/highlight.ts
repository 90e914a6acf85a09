import refractor from 'refractor/core.js';
import bash from 'refractor/lang/bash.js';
import c from 'refractor/lang/c.js';
import clike from 'refractor/lang/clike.js';
import cpp from 'refractor/lang/cpp.js';
import csharp from 'refractor/lang/csharp.js';
import css from 'refractor/lang/css.js';
import go from 'refractor/lang/go.js';
import java from 'refractor/lang/java.js';
import javascript from 'refractor/lang/javascript.js';
import json from 'refractor/lang/json.js';
import jsx from 'refractor/lang/jsx.js';
import markdown from 'refractor/lang/markdown.js';
import markup from 'refractor/lang/markup.js';
import python from 'refractor/lang/python.js';
import ruby from 'refractor/lang/ruby.js';
import rust from 'refractor/lang/rust.js';
import sql from 'refractor/lang/sql.js';
import tsx from 'refractor/lang/tsx.js';
import typescript from 'refractor/lang/typescript.js';
import yaml from 'refractor/lang/yaml.js';

// The languages most pull requests hold; others show as plain text.
for (const language of [markup, css, clike, javascript, jsx, typescript, tsx, json, bash, c, cpp, csharp, go, java, python, ruby, rust, sql, yaml, markdown]) {
  refractor.register(language);
}

const BY_EXTENSION: Record<string, string> = {
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'jsx', ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'tsx',
  json: 'json', css: 'css', html: 'markup', xml: 'markup', svg: 'markup', sh: 'bash', bash: 'bash', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp',
  hpp: 'cpp', cs: 'csharp', go: 'go', java: 'java', py: 'python', rb: 'ruby', rs: 'rust', sql: 'sql', yml: 'yaml', yaml: 'yaml', md: 'markdown',
};

/** The refractor language of a path, or undefined when none fits. */
export function languageOf(path: string): string | undefined {
  const extension = path.split('.').pop()?.toLowerCase() ?? '';
  return BY_EXTENSION[extension];
}

export { refractor };
