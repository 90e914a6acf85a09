import { useState } from 'react';

const MODEL_KEY = 'chat-model';

/** The model picked last (`provider::model`, '' for the default) stays picked, across threads and visits. */
export function usePickedModel(): [string, (value: string) => void] {
  const [model, setModel] = useState(() => localStorage.getItem(MODEL_KEY) ?? '');
  const pickModel = (value: string) => {
    setModel(value);
    localStorage.setItem(MODEL_KEY, value);
  };
  return [model, pickModel];
}
