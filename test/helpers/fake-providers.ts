import { afterAll, beforeAll, beforeEach } from 'vitest';
import { FakeAiProvider, type FakeProviderFlavor } from '../fakes/fake-ai-providers.js';

/** One fake provider for the enclosing suite, back to its initial state before each test. */
export function useFake(flavor: FakeProviderFlavor): { fake: FakeAiProvider } {
  const holder = {} as { fake: FakeAiProvider };
  beforeAll(async () => {
    holder.fake = await FakeAiProvider.start(flavor);
  });
  afterAll(() => holder.fake?.stop());
  beforeEach(() => holder.fake.reset());
  return holder;
}
