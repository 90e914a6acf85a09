import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { ChatRequest, ScriptedReply } from '../fakes/fake-openai-chat.js';

/**
 * A pull request's diff: an off-by-one on new line 3 of src/math.ts, a new file, and a lock file
 * the review must skip. New-file lines of math.ts shown by the hunk: 1 to 9.
 */
export const SAMPLE_DIFF = `diff --git a/src/math.ts b/src/math.ts
index 1111111..2222222 100644
--- a/src/math.ts
+++ b/src/math.ts
@@ -1,5 +1,9 @@
 export function average(values: number[]): number {
-  return values.reduce((a, b) => a + b, 0) / values.length;
+  let total = 0;
+  for (let i = 0; i <= values.length; i++) {
+    total += values[i];
+  }
+  return total / values.length;
 }
 
 export function clamp(value: number, min: number, max: number): number {
diff --git a/package-lock.json b/package-lock.json
index 4444444..5555555 100644
--- a/package-lock.json
+++ b/package-lock.json
@@ -1,3 +1,3 @@
 {
-  "version": "1.0.0"
+  "version": "1.0.1"
 }
diff --git a/src/greet.ts b/src/greet.ts
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/src/greet.ts
@@ -0,0 +1,3 @@
+export function greet(name: string) {
+  return 'Hello ' + name;
+}
`;

/** The files of SAMPLE_DIFF's head commit, for a git fixture the fake host serves (the code around the change). */
export const SAMPLE_HEAD_FILES: Record<string, string> = {
  'src/math.ts':
    'export function average(values: number[]): number {\n  let total = 0;\n  for (let i = 0; i <= values.length; i++) {\n    total += values[i];\n  }\n  return total / values.length;\n}\n\nexport function clamp(value: number, min: number, max: number): number {\n  return Math.min(max, Math.max(min, value));\n}\n',
  'src/greet.ts': "export function greet(name: string) {\n  return 'Hello ' + name;\n}\n",
  'package-lock.json': '{\n  "version": "1.0.1"\n}\n',
};

export interface ScriptedFinding {
  file: string;
  line: number;
  endLine?: number;
  severity?: string;
  confidence?: number;
  title: string;
  /** Exact code for lines `line` to `endLine`. */
  replacement?: string;
}

/** A review answer as a model writes it, with these findings. */
export function reviewAnswer(findings: ScriptedFinding[], overall = 0.8): string {
  return JSON.stringify({
    summary: { overview: 'Rewrites average() as a loop and adds greet().', intent: 'Refactor the math helpers.', risk: 'medium', findingsCount: findings.length },
    comments: findings.map((finding) => ({
      file: finding.file,
      line: finding.line,
      endLine: finding.endLine ?? finding.line,
      severity: finding.severity ?? 'MAJOR',
      confidence: finding.confidence ?? 85,
      title: finding.title,
      comment: `${finding.title}: explained in detail.`,
      failureScenario: 'Called with [1, 2], it reads values[2], which is undefined, and returns NaN.',
      suggestedFix: 'Use i < values.length.',
      ...(finding.replacement === undefined ? {} : { replacement: finding.replacement }),
    })),
    confidence: { overall, performance: 0.9, security: 0.95 },
    agenticFixPrompt: 'Fix the loop bound in src/math.ts.',
  });
}

/** What the sample review finds: one real bug, one off by two lines, one outside the diff, one unsure. */
export const SAMPLE_FINDINGS: ScriptedFinding[] = [
  { file: 'src/math.ts', line: 3, severity: 'CRITICAL', confidence: 95, title: 'Off-by-one reads past the end of the array' },
  { file: 'src/math.ts', line: 11, severity: 'MINOR', confidence: 80, title: 'clamp does not check min <= max' },
  { file: 'src/other.ts', line: 5, severity: 'MAJOR', confidence: 90, title: 'A file that is not in this diff' },
  { file: 'src/greet.ts', line: 2, severity: 'INFO', confidence: 20, title: 'Maybe use a template literal' },
];

const isVerification = (request: ChatRequest) => JSON.stringify(request.body.messages).includes('You verify the findings of a code review');

/** Answers review prompts with `findings` and verification prompts by confirming every finding. */
export function scriptedReviewer(findings: ScriptedFinding[] = SAMPLE_FINDINGS) {
  return (request: ChatRequest): ScriptedReply => {
    if (!isVerification(request)) return { text: reviewAnswer(findings) };
    const ids = [...JSON.stringify(request.body.messages).matchAll(/\[F(\d+)\]/g)].map((match) => Number(match[1]));
    return { text: JSON.stringify({ verdicts: [...new Set(ids)].map((id) => ({ id, verdict: 'confirmed', reason: 'The code fails as described.', line: null, endLine: null, severity: null })) }) };
  };
}

export interface ReviewInformation {
  id: string;
  prId: number;
  reviewStatus: 'pending' | 'completed' | 'failed';
  state: string;
  failureReason: string | null;
  reviewdSha: string | null;
  reviewRawJSON: {
    comments: Array<{ id: string; file: string; line: number; endLine: number; severity: string; title: string; verdict?: string | null }>;
    skippedFiles: Array<{ path: string; reason: string }>;
    droppedFindings: Record<string, number>;
    summary: { overview: string; findingsCount: number };
  } | null;
  coverage: { files: number; reviewableFiles: number; lines: number; reviewableLines: number } | null;
  mode: string;
  attemptNumber: number | null;
  duration: number | null;
  triggeredBy: 'webhook' | 'manual' | null;
  [key: string]: unknown;
}

export interface SettleOptions {
  timeoutMs?: number;
  /** What the settled review must also show, e.g. the head commit of a later push. */
  until?: (review: ReviewInformation) => boolean;
}

/** Polls `GET /review/information/:prId` until the review exists, has left `pending` and satisfies `until`. */
export async function settledReview(app: FastifyInstance, cookie: string, prId: number | string, { timeoutMs = 20_000, until = () => true }: SettleOptions = {}): Promise<ReviewInformation> {
  let latest: ReviewInformation | undefined;
  await expect
    .poll(
      async () => {
        const response = await app.inject({ method: 'GET', url: `/review/information/${prId}`, headers: { cookie } });
        latest = response.json<ReviewInformation[]>()[0];
        return latest;
      },
      { timeout: timeoutMs, interval: 50, message: `the review of ${prId} settled` },
    )
    .toSatisfy((review: ReviewInformation | undefined) => review !== undefined && review.reviewStatus !== 'pending' && until(review));
  return latest!;
}
