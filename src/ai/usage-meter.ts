import type { LanguageModelV3, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import type { ServiceMetrics } from '../adapters/metrics/service-metrics.js';
import type { Logger } from '../lib/logger.js';
import type { UsageIncrement, UsageRepository } from '../repositories/usage-repository.js';

export interface Pricing {
  /** USD per million tokens. */
  inputPrice: number;
  outputPrice: number;
}

/** Who pays for a generation: platform generations are priced, BYOK ones only counted. */
export interface MeterTarget {
  userId: string;
  pricing: Pricing | null;
  /** The provider's name (`platform`, `openai`, …), for the metrics. */
  provider: string;
}

/** Tokens of one generation, and its cost under `pricing` (none for BYOK). */
export function usageIncrement(usage: LanguageModelV3Usage, pricing: Pricing | null): UsageIncrement {
  const inputTokens = usage.inputTokens.total ?? 0;
  const outputTokens = usage.outputTokens.total ?? 0;
  return {
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
 * included: the model handed out is wrapped, so no caller can forget to record.
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
          const result = await doGenerate();
          await this.record(target, result.usage, model.modelId);
          return result;
        },
        wrapStream: async ({ doStream }) => {
          const { stream, ...rest } = await doStream();
          const record = (usage: LanguageModelV3Usage) => this.record(target, usage, model.modelId);
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
  async record(target: MeterTarget, usage: LanguageModelV3Usage, modelId: string): Promise<void> {
    const increment = usageIncrement(usage, target.pricing);
    this.count(target, modelId, increment);
    try {
      await this.usage.add(target.userId, increment);
    } catch (error) {
      this.log.error({ err: error, userId: target.userId }, 'could not record usage');
    }
  }

  private count(target: MeterTarget, modelId: string, increment: UsageIncrement): void {
    if (this.metrics === undefined) return;
    const { modelTokens, platformCost } = this.metrics;
    const add = (kind: string, tokens: number) => {
      if (tokens > 0) modelTokens.labels(target.provider, modelId, kind).inc(tokens);
    };
    add('input', increment.inputTokens);
    add('cached_input', increment.cachedInputTokens);
    add('output', increment.outputTokens);
    add('reasoning', increment.reasoningTokens);
    if (target.pricing !== null) platformCost.labels(target.provider, modelId).inc(increment.inputCost + increment.outputCost);
  }
}
