/** The choices of `ai-review review` (decisions.md §17), apart from their code so that parsing loads nothing else. */
export const FORMATS = ['text', 'json', 'markdown', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];
export const FAIL_ON = ['critical', 'major', 'minor', 'info', 'none'] as const;
export type FailOn = (typeof FAIL_ON)[number];
