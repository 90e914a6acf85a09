/**
 * How a host's comments carry the service's hidden markers and folded parts (decisions.md §8, §16).
 * A publisher names its host's dialect; publishing and commands build bodies with it and never
 * hard-wire one. The dialects themselves are in `publishing/markers.ts` and `publishing/comment-bodies.ts`.
 */

/**
 * Hidden markers in what the service posts. Read back before posting, they make publishing
 * idempotent: a job that runs twice finds its own comments and posts nothing again. Each is
 * anchored at the start of a body: text quoted further down is never taken for a marker.
 */
export interface MarkerStyle {
  finding: (findingId: string) => string;
  summary: () => string;
  addressed: (findingId: string) => string;
  /** An answer to a command comment: a retried command finds it and does not answer twice. */
  reply: (commentId: number | string) => string;
  /** The finding an inline comment carries, if it is one of the service's. */
  findingIdOf: (body: string) => string | undefined;
  isSummary: (body: string) => boolean;
  addressedIdOf: (body: string) => string | undefined;
  /** Model-written text with anything that could pass for this style's markers defused. */
  defuse: (text: string) => string;
}

/** What a host's comments can hold. */
export interface BodyDialect {
  markers: MarkerStyle;
  /** Whether `<details>` folds; without, a folded part is shown under a heading. */
  html: boolean;
  /** The longest body the host accepts. */
  limit: number;
}
