/**
 * Small diffs shaped like the ones that used to reach the model as noise or data (issue 13): each
 * is a `diff --git` section as GitHub serves it, built from a few lines so a test reads at a glance.
 */

/** One file's section; `lines` are the hunk's lines with their markers, `\r` kept where a file has CRLF. */
export function fileDiff(path: string, hunks: Array<{ header: string; lines: string[] }>, header: string[] = [], oldPath = path): string {
  const body = hunks.map((hunk) => `${hunk.header}\n${hunk.lines.join('\n')}\n`).join('');
  return [`diff --git a/${oldPath} b/${path}`, ...header, 'index 1111111..2222222 100644', `--- a/${oldPath}`, `+++ b/${path}`].join('\n') + '\n' + body;
}

/** A new file holding `lines`. */
export function newFileDiff(path: string, lines: string[]): string {
  return (
    [`diff --git a/${path} b/${path}`, 'new file mode 100644', 'index 0000000..2222222', '--- /dev/null', `+++ b/${path}`, `@@ -0,0 +1,${lines.length} @@`].join('\n') +
    '\n' +
    lines.map((line) => `+${line}`).join('\n') +
    '\n'
  );
}

const WINDOWS_LINES = ['using System;', 'namespace Shop {', '  public class Cart {', '    public int Count;', '  }', '}'];

/** A C# file converted from CRLF to LF: every line removed (with `\r`) and added again, nothing else. */
export const CRLF_TO_LF = fileDiff('src/Shop/Cart.cs', [
  { header: `@@ -1,6 +1,6 @@`, lines: [...WINDOWS_LINES.map((line) => `-${line}\r`), ...WINDOWS_LINES.map((line) => `+${line}`)] },
]);

/**
 * A TypeScript file with a re-indented hunk (lines 2–4, whitespace only) and, further down, a real
 * change: new line 21 `return total * rate;` (was `return total;`), beside a re-indented line 20.
 */
export const WHITESPACE_BESIDE_REAL = fileDiff('src/billing/tax.ts', [
  {
    header: '@@ -1,5 +1,5 @@ export function tax(total: number, rate: number) {',
    lines: [
      ' export function tax(total: number, rate: number) {',
      '-  if (rate < 0) {',
      '-    throw new Error("negative rate");',
      '-  }',
      '+    if (rate < 0) {',
      '+        throw new Error("negative rate");',
      '+    }',
      '   const base = total;',
    ],
  },
  {
    header: '@@ -18,5 +18,5 @@ export function tax(total: number, rate: number) {',
    lines: [' function applyRate(total: number, rate: number) {', '   // rate is a fraction', '-  const  rounded = round(total);', '-  return total;', '+  const rounded = round(total);', '+  return total * rate;', ' }'],
  },
]);

/** A Python file whose only change moves a statement out of an `if`: indentation is the change. */
export const PYTHON_INDENTATION = fileDiff('app/jobs.py', [
  {
    header: '@@ -10,4 +10,4 @@ def run(jobs):',
    lines: ['     for job in jobs:', '         if job.ready:', '-            job.start()', '+        job.start()', '     return jobs'],
  },
]);

const CERTIFICATE = [
  '-----BEGIN CERTIFICATE-----',
  'MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ',
  'RTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD',
  'VQQDExlCYWx0aW1vcmUgQ3liZXJUcnVzdCBSb290MB4XDTAwMDUxMjE4NDYwMFoX',
  '-----END CERTIFICATE-----',
];

/** A CA bundle as `cacert.pem` ships it, under a name the path rules do not know. */
export const PEM_BUNDLE = newFileDiff('certs/trust-store.txt', [
  '##',
  '## Bundle of CA Root Certificates',
  '##',
  '',
  'Baltimore CyberTrust Root',
  '=========================',
  ...CERTIFICATE,
  '',
  'Another Root',
  '============',
  ...CERTIFICATE,
]);

/** A minified bundle under a path no rule names: a few kilobytes on lines of some hundred characters. */
export const MINIFIED_BUNDLE = newFileDiff(
  'website/static/lib/app.js',
  Array.from(
    { length: 16 },
    (_, index) =>
      `var m${index}=function(e,t){return e.reduce(function(e,n){return e+n*t},0)},b${index}=function(e){return JSON.parse(JSON.stringify(e))};window.lib${index}={a:m${index},b:b${index}};`,
  ),
);

/** An Illustrator file git took for text: a PDF, with compressed streams that are not UTF-8. */
export const TEXT_MODE_PDF = newFileDiff('design/logo.ai', [
  '%PDF-1.5',
  '%\ufffd\ufffd\ufffd\ufffd',
  '1 0 obj',
  '<</Length 42/Filter/FlateDecode>>stream',
  'x\ufffd\u0003\ufffd\u0011\ufffd\ufffdT\ufffd\u0002\ufffd\ufffd',
  'endstream',
]);
