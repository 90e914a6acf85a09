/**
 * Hidden HTML comments in what the App posts (decisions.md §8). Read back before posting, they make
 * publishing idempotent: a job that runs twice finds its own comments and posts nothing again.
 */
// Anchored at the start: text quoted further down a body (a model's answer, a code suggestion) is never taken for a marker.
const FINDING = /^<!-- ai-review:finding:([A-Za-z0-9-]{1,64}) -->/;
const SUMMARY = '<!-- ai-review:summary -->';
const ADDRESSED = /^<!-- ai-review:addressed:([A-Za-z0-9-]{1,64}) -->/;

export const findingMarker = (findingId: string) => `<!-- ai-review:finding:${findingId} -->`;
export const addressedMarker = (findingId: string) => `<!-- ai-review:addressed:${findingId} -->`;
export const summaryMarker = () => SUMMARY;

/** The finding an inline comment carries, if it is one of the App's. */
export const findingIdOf = (body: string): string | undefined => FINDING.exec(body)?.[1];
export const isSummary = (body: string) => body.startsWith(SUMMARY);
export const addressedIdOf = (body: string): string | undefined => ADDRESSED.exec(body)?.[1];

/** An answer to a command comment: a retried command finds it and does not answer twice. */
export const replyMarker = (commentId: number | string) => `<!-- ai-review:reply:${commentId} -->`;
