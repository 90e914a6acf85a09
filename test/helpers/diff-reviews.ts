import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

export interface DiffReviewState {
  reviewId: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  error?: string;
  review?: {
    reviewSummary: string | null;
    score: number;
    reviewRawJSON: { comments: Array<{ id: string; file: string; line: number; severity: string; title: string; verdict: string | null }>; [key: string]: unknown };
    skippedFiles: Array<{ path: string; reason: string }>;
    configProblems: Array<{ line: number; message: string }>;
    coverage: { files: number; reviewableFiles: number; lines: number; reviewableLines: number } | null;
  };
}

/** Sends a diff for review and returns its id (202 expected). */
export async function postDiff(app: FastifyInstance, headers: Record<string, string>, payload: object): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/review/diff', headers, payload });
  expect(response.statusCode, response.body).toBe(202);
  const body = response.json<{ reviewId: string; status: string }>();
  expect(body.status).toBe('queued');
  return body.reviewId;
}

/** Polls `GET /review/diff/:reviewId` until it is completed or failed. */
export async function settledDiffReview(app: FastifyInstance, headers: Record<string, string>, reviewId: string, timeoutMs = 20_000): Promise<DiffReviewState> {
  let latest: DiffReviewState | undefined;
  await expect
    .poll(
      async () => {
        const response = await app.inject({ method: 'GET', url: `/review/diff/${reviewId}`, headers });
        latest = response.json<DiffReviewState>();
        return latest.status;
      },
      { timeout: timeoutMs, interval: 50, message: `the diff review ${reviewId} settled` },
    )
    .toMatch(/^(completed|failed)$/);
  return latest!;
}

/** A change a command line sends: `total()` now subtracts the tax it calls from another file. */
export const PRICE_DIFF = `diff --git a/src/price.ts b/src/price.ts
index 1111111..2222222 100644
--- a/src/price.ts
+++ b/src/price.ts
@@ -1,5 +1,5 @@
 import { taxOf } from './tax';
 
 export function total(net: number): number {
-  return net + taxOf(net);
+  return net - taxOf(net);
 }
`;

/** The head versions of the changed file and the file it imports. */
export const PRICE_FILES = [
  { path: 'src/price.ts', content: "import { taxOf } from './tax';\n\nexport function total(net: number): number {\n  return net - taxOf(net);\n}\n" },
  { path: 'src/tax.ts', content: 'export function taxOf(net: number): number {\n  // VAT_RATE_MARKER\n  return net * 0.2;\n}\n' },
];

export const PRICE_FINDING = { file: 'src/price.ts', line: 4, severity: 'MAJOR', confidence: 90, title: 'The tax is subtracted instead of added' };
