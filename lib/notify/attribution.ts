import type { BriefRecord } from "../briefs";
import { UTM_KEYS } from "../schemas/attribution";

/**
 * Where a lead came from, as the notifications show it: one labelled line per value the brief
 * kept (`Page`, `Referrer`, `utm_source`, ...), in the form's order; none when it kept none.
 */
export function attributionLines(record: Pick<BriefRecord, "attribution">): [string, string][] {
  const { attribution } = record;
  if (!attribution) return [];
  const lines: [string, string][] = [];
  if (attribution.page !== undefined) lines.push(["Page", attribution.page]);
  if (attribution.referrer !== undefined) lines.push(["Referrer", attribution.referrer]);
  for (const key of UTM_KEYS) {
    const value = attribution.utm?.[key];
    if (value !== undefined) lines.push([`utm_${key}`, value]);
  }
  return lines;
}
