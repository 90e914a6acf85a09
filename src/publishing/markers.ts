/**
 * Hidden markers in what the service posts (decisions.md §8, §16). Read back before posting, they
 * make publishing idempotent: a job that runs twice finds its own comments and posts nothing again.
 * Each is anchored at the start of a body: text quoted further down (a model's answer, a code
 * suggestion) is never taken for a marker. The style's shape is in `domain/comment-dialect.ts`.
 */
import type { MarkerStyle } from '../domain/comment-dialect.js';

export type { MarkerStyle };

const HTML_FINDING = /^<!-- ai-review:finding:([A-Za-z0-9-]{1,64}) -->/;
const HTML_ADDRESSED = /^<!-- ai-review:addressed:([A-Za-z0-9-]{1,64}) -->/;
const LINK_FINDING = /^\[ai-review:finding:([A-Za-z0-9-]{1,64})\]: #(?:\n|$)/;
const LINK_ADDRESSED = /^\[ai-review:addressed:([A-Za-z0-9-]{1,64})\]: #(?:\n|$)/;
const LINK_SUMMARY = /^\[ai-review:summary\]: #(?:\n|$)/;

/** GitHub and GitLab: HTML comments, which their Markdown hides. */
export const HTML_MARKERS: MarkerStyle = {
  finding: (findingId) => `<!-- ai-review:finding:${findingId} -->`,
  summary: () => '<!-- ai-review:summary -->',
  addressed: (findingId) => `<!-- ai-review:addressed:${findingId} -->`,
  reply: (commentId) => `<!-- ai-review:reply:${commentId} -->`,
  findingIdOf: (body) => HTML_FINDING.exec(body)?.[1],
  isSummary: (body) => body.startsWith('<!-- ai-review:summary -->'),
  addressedIdOf: (body) => HTML_ADDRESSED.exec(body)?.[1],
  defuse: (text) => text.replaceAll('<!--', '&lt;!--'),
};

/**
 * Bitbucket: its renderer escapes raw HTML, so an HTML comment would show as text (facts §1). An
 * unreferenced link reference definition on its own line renders nothing and survives in
 * `content.raw` (decisions.md §16): `[ai-review:finding:<id>]: #`.
 */
export const LINK_REFERENCE_MARKERS: MarkerStyle = {
  finding: (findingId) => `[ai-review:finding:${findingId}]: #`,
  summary: () => '[ai-review:summary]: #',
  addressed: (findingId) => `[ai-review:addressed:${findingId}]: #`,
  reply: (commentId) => `[ai-review:reply:${commentId}]: #`,
  findingIdOf: (body) => LINK_FINDING.exec(body)?.[1],
  isSummary: (body) => LINK_SUMMARY.test(body),
  addressedIdOf: (body) => LINK_ADDRESSED.exec(body)?.[1],
  // An escaped bracket is no link label: model text cannot define one of the service's markers.
  defuse: (text) => text.replaceAll('[ai-review:', '\\[ai-review:'),
};

// The HTML style under its historical names: GitHub's and GitLab's publishers use these.
export const findingMarker = HTML_MARKERS.finding;
export const addressedMarker = HTML_MARKERS.addressed;
export const summaryMarker = HTML_MARKERS.summary;
export const findingIdOf = HTML_MARKERS.findingIdOf;
export const isSummary = HTML_MARKERS.isSummary;
export const addressedIdOf = HTML_MARKERS.addressedIdOf;
export const replyMarker = HTML_MARKERS.reply;
