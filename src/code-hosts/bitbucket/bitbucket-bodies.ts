import { addressedReplyBody, inlineCommentBody, summaryCommentBody, type BodyDialect, type SummaryInput } from '../../publishing/comment-bodies.js';
import { LINK_REFERENCE_MARKERS } from '../../publishing/markers.js';
import type { PublishableFinding } from '../../domain/findings.js';

/**
 * Bitbucket's comment size is undocumented for Cloud; integrators cap near 32 KB (facts §3: PR-Agent
 * cuts at 31,000 characters, Data Center refuses over 32,768). The summary stays within this many.
 */
export const BITBUCKET_COMMENT_LIMIT = 31_000;

/**
 * What Bitbucket's comments can hold (decisions.md §16): it escapes raw HTML, so the hidden markers
 * are link reference definitions (`[ai-review:finding:<id>]: #`) and no body holds HTML: the agentic
 * prompt goes in a fenced block under a heading, and a long file list is not folded.
 */
export const BITBUCKET_DIALECT: BodyDialect = { markers: LINK_REFERENCE_MARKERS, html: false, limit: BITBUCKET_COMMENT_LIMIT };

/** An inline comment: §8's body; exact replacement code as a plain fenced block (Bitbucket has no suggestions). */
export const bitbucketInlineBody = (finding: PublishableFinding) => inlineCommentBody(finding, null, BITBUCKET_DIALECT);

/** The one summary comment, edited in place. */
export const bitbucketSummaryBody = (input: Omit<SummaryInput, 'dialect'>) => summaryCommentBody({ ...input, dialect: BITBUCKET_DIALECT });

/** The reply on a gone finding's comment when Bitbucket will not resolve it (403, facts §3). */
export const bitbucketAddressedReply = (findingId: string, sha: string) => addressedReplyBody(findingId, sha, BITBUCKET_DIALECT);

/** An answer to a command (`/ask`, `/help`), a reply to its comment: the marker lets a retried command find it. */
export const bitbucketCommandReply = (commentId: number, text: string) => `${LINK_REFERENCE_MARKERS.reply(commentId)}\n${LINK_REFERENCE_MARKERS.defuse(text)}`;

/** The service's own comments, by their markers: never commands, and read back to publish idempotently. */
export const isServiceComment = (raw: string) =>
  LINK_REFERENCE_MARKERS.findingIdOf(raw) !== undefined || LINK_REFERENCE_MARKERS.isSummary(raw) || LINK_REFERENCE_MARKERS.addressedIdOf(raw) !== undefined || raw.startsWith('[ai-review:reply:');
