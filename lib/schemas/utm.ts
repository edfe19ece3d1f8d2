/**
 * The `utm_*` parameters a lead's attribution keeps. Apart from `attribution.ts` (which imports
 * zod) because the browser reads them on every page of the site, where zod is not loaded.
 */
export const UTM_KEYS = ["source", "medium", "campaign", "term", "content"] as const;

export type UtmKey = (typeof UTM_KEYS)[number];
