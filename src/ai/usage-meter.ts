import { performance } from 'node:perf_hooks';
import type { LanguageModelV3, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import type { ServiceMetrics } from '../adapters/metrics/service-metrics.js';
import type { UsageKind } from '../db/schema/index.js';
import type { Owner } from '../domain/owners.js';
import type { Logger } from '../lib/logger.js';
import type { UsageEntry, UsageRepository } from '../repositories/usage-repository.js';

export interface Pricing {
  /** USD per million tokens. */
  inputPrice: number;
  outputPrice: number;
}

/** What a generation was for (decisions.md §14): kept on its usage record. */
export interface UsageContext {
  kind: UsageKind;
  pullRequestId?: string | null;
  repositoryName?: string | null;
}

/** Who a generation is for, and who pays: platform generations are charged, BYOK ones only recorded. */
export interface MeterTarget extends UsageContext {
  owner: Owner;
  /** In an organization, the member the call is attributed to (null: none); null in a personal space. */
  memberId: string | null;
  /** The catalog's prices when known; without them a generation costs 0. */
  pricing: Pricing | null;
  /** True for the platform's models: the cost is charged to the free allowance. */
  charged: boolean;
  /** The provider's name (`platform`, `openai`, …): the record's source and the metrics' label. */
  provider: string;
}

/** Tokens and cost of one generation, and what it was for. */
export function usageEntry(target: MeterTarget, modelId: string, usage: LanguageModelV3Usage, durationMs: number): UsageEntry {
  const { pricing } = target;
  const inputTokens = usage.inputTokens.total ?? 0;
  const outputTokens = usage.outputTokens.total ?? 0;
  return {
    owner: target.owner,
    memberId: target.memberId,
    kind: target.kind,
    modelId,
    source: target.provider,
    charged: target.charged,
    pullRequestId: target.pullRequestId ?? null,
    repositoryName: target.repositoryName ?? null,
    durationMs: Math.max(0, Math.round(durationMs)),
    inputTokens,
    cachedInputTokens: usage.inputTokens.cacheRead ?? 0,
    outputTokens,
    reasoningTokens: usage.outputTokens.reasoning ?? 0,
    inputCost: pricing === null ? 0 : (inputTokens * pricing.inputPrice) / 1_000_000,
    outputCost: pricing === null ? 0 : (outputTokens * pricing.outputPrice) / 1_000_000,
  };
}

/**
 * Meters every call a model makes, generated or streamed, each step of a multi-step tool loop
 * included: the model handed out is wrapped, so no caller can forget to record. A call's duration
 * runs from the request to its last token.
 */
export class UsageMeter {
  constructor(
    private readonly usage: UsageRepository,
    private readonly log: Logger,
    private readonly metrics?: Pick<ServiceMetrics, 'modelTokens' | 'platformCost'>,
  ) {}

  wrap(model: LanguageModelV3, target: MeterTarget): LanguageModelV3 {
    return wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v3',
        wrapGenerate: async ({ doGenerate }) => {
          const started = performance.now();
          const result = await doGenerate();
          await this.record(target, result.usage, model.modelId, performance.now() - started);
          return result;
        },
        wrapStream: async ({ doStream }) => {
          const started = performance.now();
          const { stream, ...rest } = await doStream();
          const record = (usage: LanguageModelV3Usage) => this.record(target, usage, model.modelId, performance.now() - started);
          return {
            ...rest,
            stream: stream.pipeThrough(
              new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
                async transform(part, controller) {
                  if (part.type === 'finish') await record(part.usage);
                  controller.enqueue(part);
                },
              }),
            ),
          };
        },
      },
    });
  }

  /** A failure to record is logged, not thrown: the user already has the answer. */
  async record(target: MeterTarget, usage: LanguageModelV3Usage, modelId: string, durationMs: number): Promise<void> {
    const entry = usageEntry(target, modelId, usage, durationMs);
    this.count(entry);
    try {
      await this.usage.add(entry);
    } catch (error) {
      this.log.error({ err: error, owner: target.owner }, 'could not record usage');
    }
  }

  private count(entry: UsageEntry): void {
    if (this.metrics === undefined) return;
    const { modelTokens, platformCost } = this.metrics;
    const add = (kind: string, tokens: number) => {
      if (tokens > 0) modelTokens.labels(entry.source, entry.modelId, kind).inc(tokens);
    };
    add('input', entry.inputTokens);
    add('cached_input', entry.cachedInputTokens);
    add('output', entry.outputTokens);
    add('reasoning', entry.reasoningTokens);
    if (entry.charged) platformCost.labels(entry.source, entry.modelId).inc(entry.inputCost + entry.outputCost);
  }
}
