/**
 * Model families that providers list beside chat models but that cannot hold a review
 * conversation. Matched on the lowercased id; `\b` treats `-`, `.`, `/` and `:` as word edges, so
 * `gpt-4o-mini-tts` is speech while a name merely containing the letters is not.
 */
const NON_CHAT_FAMILIES: ReadonlyArray<{ reason: string; pattern: RegExp }> = [
  { reason: 'embeddings', pattern: /embed/ },
  { reason: 'reranking', pattern: /rerank/ },
  { reason: 'moderation', pattern: /moderation/ },
  { reason: 'speech and audio', pattern: /whisper|transcri|speech|\btts\b|\baudio\b/ },
  { reason: 'image and video generation', pattern: /dall-e|\bimagen?\b|\bsora\b|\bveo\b/ },
  { reason: 'legacy completions', pattern: /\b(?:babbage|davinci)\b/ },
  // Chat-shaped, but each needs its own tool or transport (web search, a live socket, a desktop).
  { reason: 'search, realtime and computer-use variants', pattern: /\bsearch\b|deep-research|\brealtime\b|computer-use/ },
];

/** Why a model id is not a chat model, or null when nothing says it is not. */
export function nonChatReason(id: string): string | null {
  const lower = id.toLowerCase();
  return NON_CHAT_FAMILIES.find(({ pattern }) => pattern.test(lower))?.reason ?? null;
}

export const isChatModelId = (id: string) => nonChatReason(id) === null;
