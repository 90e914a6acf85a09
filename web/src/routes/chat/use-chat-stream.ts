import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { streamChat, type ChatRequest } from '../../api/chat';
import { queries } from '../../api/queries';
import type { ModelList } from '../../api/types';
import type { ChatAnswer } from '../../lib/ndjson';

/** The exchange being streamed (or just streamed and not yet in the history). */
export interface Live {
  input: string;
  answer: ChatAnswer;
  streaming: boolean;
}

interface Thread {
  /** The open thread; undefined for a new one. */
  conversationId: string | undefined;
  /** The pull request a new thread is about. */
  prId: string | undefined;
  /** The picked model and the models the user may pick, to send only a model still on offer. */
  model: string;
  models: ModelList | undefined;
}

/**
 * Sends a message and streams its answer into `live`. A new thread's first answer opens the
 * thread's page; in an open thread the answer, once in the history, leaves `live`.
 */
export function useChatStream({ conversationId, prId, model, models }: Thread) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [live, setLive] = useState<Live | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    setLive(null);
  }, [conversationId]);

  const send = async (message: string) => {
    setError(null);
    setLive({ input: message, answer: { text: '', tools: [] }, streaming: true });
    try {
      const known = models?.some((entry) => entry.availableModels.some((option) => `${entry.id}::${option.id}` === model)) ?? false;
      const body: ChatRequest = { message, ...modelChoice(known ? model : '') };
      if (conversationId) body.conversationId = conversationId;
      else if (prId) body.prId = prId;
      const answer = await streamChat(body, (partial) => setLive({ input: message, answer: partial, streaming: true }));
      setLive({ input: message, answer, streaming: false });
      const threadId = conversationId ?? answer.conversationId;
      void queryClient.invalidateQueries({ queryKey: ['threads'] });
      if (threadId) {
        await queryClient.invalidateQueries({ queryKey: ['history', threadId] });
        if (!conversationId) {
          await queryClient.prefetchQuery(queries.history(threadId));
          await navigate({ to: '/chat/$id', params: { id: threadId }, search: { prId: undefined }, replace: true });
        } else if (!answer.error) setLive(null);
      }
    } catch (failure) {
      setError(failure);
      setLive(null);
    }
  };

  return { live, error, send };
}

/** `provider::model`; the platform's entry needs no provider. */
function modelChoice(value: string): Pick<ChatRequest, 'llmModel' | 'customModelData'> {
  if (!value) return {};
  const [providerId, ...rest] = value.split('::');
  const llmModel = rest.join('::');
  return providerId === '1' || !providerId ? { llmModel } : { llmModel, customModelData: { providerId } };
}
