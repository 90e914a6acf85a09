import { z } from 'zod';
import { changesSomething, isoTimestamp } from '../common-schemas.js';

/** The only tab the API document shows; any other is a 404. */
export const tabParams = z.object({ tab: z.string().max(64) });

const modelSlug = z.string().trim().max(256).nullable();
const prompt = z.string().max(20_000).nullable();

const fields = {
  quickModeModel: modelSlug,
  focusedModeModel: modelSlug,
  deepModeModel: modelSlug,
  systemPrompt: prompt,
  quickModePrompt: prompt,
  foucsedModePrompt: prompt,
  deepModePrompt: prompt,
};

export const settingsBody = z.object(fields).partial().strict();

export const settingsPatchBody = changesSomething(settingsBody);

export const settingsResponse = z.array(
  z.object({ id: z.uuid(), ...Object.fromEntries(Object.keys(fields).map((key) => [key, z.string().nullable()])), createdAt: isoTimestamp, updatedAt: isoTimestamp }),
);
