import type { DiffFile, DiffLine } from './diff/diff-types.js';
import type { SkipReason } from './skip-reasons.js';

/**
 * Skip rules that read what a file adds, for data and build output that an ordinary name hides:
 * an Illustrator file git takes for text (a PDF inside), a `cacert.pem`, a bundled library under
 * `static/lib/`. Modelled on GitHub Linguist's `generated.rb` and `vendor.yml` (source maps,
 * minified files by mean line length, banners of bundled libraries); Linguist's npm port
 * (`linguist-js`) needs Node 26 and reads folders, not diffs, so the rules are written here.
 * `file` is the file as it would be sent (layout-only changes already taken out).
 */
export function contentReason(file: DiffFile, minifiedMeanLineLength: number): SkipReason | null {
  const added = addedLines(file);
  if (added.length === 0) return null;
  if (startsWithBinarySignature(file) || unprintableShare(added) > MAX_UNPRINTABLE_SHARE) return 'binary content';
  if (isCertificateBundle(added)) return 'certificate bundle';
  if (isSourceMap(file)) return 'source map';
  if (hasGeneratedMarker(file)) return 'generated';
  if (isBundle(file, added)) return 'bundled code';
  const characters = added.reduce((sum, line) => sum + line.text.length, 0);
  // Line lengths say something of a file, not of a one-line edit that adds a long line.
  if (characters < MIN_CHARACTERS_FOR_LINE_LENGTHS) return null;
  const mean = characters / added.length;
  const script = SCRIPT_OR_STYLE.test(file.path);
  // Linguist takes JavaScript and CSS of more than 110 characters a line on average as minified.
  if (script && mean > MINIFIED_SCRIPT_MEAN_LINE_LENGTH) return 'minified';
  if (mean > minifiedMeanLineLength) return script ? 'minified' : 'very long lines';
  return null;
}

function addedLines(file: DiffFile): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const hunk of file.hunks) for (const line of hunk.lines) if (line.kind === 'add') lines.push(line);
  return lines;
}

/** The first lines of the new file, as far as its first hunk shows them. */
function* headLines(file: DiffFile, within: number): Generator<DiffLine> {
  const first = file.hunks[0];
  if (!first || first.newStart > within) return;
  for (const line of first.lines) {
    if (line.newLine === undefined) continue;
    if (line.newLine > within) return;
    yield line;
  }
}

/**
 * PDF (and so Illustrator), PostScript/EPS, PNG, GIF, ZIP (docx, jar…), ELF. A byte that is not
 * UTF-8 reaches us as U+FFFD, so PNG's first byte is matched either way.
 */
const BINARY_SIGNATURES = ['%PDF-', '%!PS-Adobe', '\u0089PNG', '\ufffdPNG', 'GIF87a', 'GIF89a', 'PK\u0003\u0004', '\u007fELF'];

function startsWithBinarySignature(file: DiffFile): boolean {
  for (const line of headLines(file, 1)) if (BINARY_SIGNATURES.some((signature) => line.text.startsWith(signature))) return true;
  return false;
}

/** Above this share of control characters and U+FFFD (bytes that were not UTF-8), the text is data. */
const MAX_UNPRINTABLE_SHARE = 0.1;
/** Characters read for the share: enough to judge, bounded for a large file. */
const UNPRINTABLE_SAMPLE = 200_000;

/** Control characters but tab and form feed, C1 controls, U+FFFD. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this finds
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u000b\u000d-\u001f\u007f-\u009f\ufffd]/;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, 'g');

function unprintableShare(lines: readonly DiffLine[]): number {
  let total = 0;
  let unprintable = 0;
  for (const line of lines) {
    const text = line.text;
    // Most lines have none: one native scan answers for them, and only the others are counted.
    if (UNPRINTABLE.test(text)) unprintable += text.match(UNPRINTABLE_ALL)!.length;
    total += text.length;
    if (total >= UNPRINTABLE_SAMPLE) break;
  }
  return total === 0 ? 0 : unprintable / total;
}

/**
 * PEM blocks of certificates and public material (a CA bundle, a trust store). A private key is
 * not among them: committing one is exactly what a reviewer must see.
 */
const PEM_BEGIN = /^-----BEGIN (?:TRUSTED CERTIFICATE|CERTIFICATE|X509 CRL|PKCS7|CERTIFICATE REQUEST|NEW CERTIFICATE REQUEST|PUBLIC KEY)-----\s*$/;
const PEM_END = /^-----END [A-Z0-9 ]+-----\s*$/;
/** Share of the added lines inside such blocks above which the file is a bundle, whatever its comments. */
const CERTIFICATE_SHARE = 0.5;

function isCertificateBundle(lines: readonly DiffLine[]): boolean {
  let inside = 0;
  let open = false;
  for (const line of lines) {
    if (!open && PEM_BEGIN.test(line.text)) open = true;
    if (open) inside++;
    if (open && PEM_END.test(line.text)) open = false;
  }
  return inside > 0 && inside >= lines.length * CERTIFICATE_SHARE;
}

/** Linguist's test: a source map starts with `{"version":3,` (after an optional XSSI prefix). */
function isSourceMap(file: DiffFile): boolean {
  for (const line of headLines(file, 2)) if (/^(?:\)\]\}'?)?\s*\{\s*"version"\s*:\s*3\s*,/.test(line.text)) return true;
  return false;
}

/**
 * `@generated` (Meta's convention), Go's `Code generated … DO NOT EDIT.`, `<auto-generated>` (C#),
 * "DO NOT EDIT" headers. Read only in comment lines near the top of the file: the source of a code
 * generator often holds the same words in a string, and must stay reviewable.
 */
const GENERATED_MARKER = /@generated\b|\bDO NOT EDIT\b|<auto-generated|\bautomatically generated\b|\bauto-generated\b/;
const COMMENT_START = /^\s*(?:\/\/|\/\*|\*|#|--|;|<!--|"""|''')/;
const MARKER_WITHIN_LINES = 12;

function hasGeneratedMarker(file: DiffFile): boolean {
  for (const line of headLines(file, MARKER_WITHIN_LINES)) if (COMMENT_START.test(line.text) && GENERATED_MARKER.test(line.text)) return true;
  return false;
}

/**
 * A library's release banner in the first lines (`/*! jQuery v3.7.1 | (c) OpenJS Foundation`,
 * ` * Bootstrap v5.3.0 (https://getbootstrap.com/)`, `@license React v18.2.0`): a name then a
 * `v`-prefixed version, which a project's own source headers do not carry.
 */
const LIBRARY_BANNER = /^\s*(?:\/\*[!*]?|\*|\/\/)\s*(?:@license\s+)?[A-Za-z][\w.@/-]*(?:\s[A-Za-z][\w.-]*){0,2}\s+v\d+\.\d+\.\d+/;
/** What bundlers write into their output: webpack's runtime, the UMD wrapper, a source map link. */
const BUNDLER_OUTPUT = /__webpack_require__|__webpack_modules__|^\/\*{6}\/|^\/\/[#@] sourceMappingURL=|^\/\*# sourceMappingURL=\S+ \*\/$|typeof define === ?["']function["'] && define\.amd/;
const BANNER_WITHIN_LINES = 5;

function isBundle(file: DiffFile, added: readonly DiffLine[]): boolean {
  if (!SCRIPT_OR_STYLE.test(file.path)) return false;
  for (const line of headLines(file, BANNER_WITHIN_LINES)) if (LIBRARY_BANNER.test(line.text)) return true;
  return added.some((line) => BUNDLER_OUTPUT.test(line.text));
}

const SCRIPT_OR_STYLE = /\.(?:js|mjs|cjs|css)$/i;
const MINIFIED_SCRIPT_MEAN_LINE_LENGTH = 110;
const MIN_CHARACTERS_FOR_LINE_LENGTHS = 2_000;
