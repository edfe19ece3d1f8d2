import type { ReactNode } from "react";
import type { BriefRecord, SpamVerdict } from "@/lib/briefs";
import { spamReasonText } from "@/lib/ops";
import { UTM_KEYS } from "@/lib/schemas/attribution";
import { visibleText } from "@/lib/format";

/**
 * Where a brief came from, for its page: the attribution the form sent (page, referrer, utm) and,
 * for a spam entry, what caught it. Self-contained, so the page places them where its layout wants.
 */

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[8rem_1fr] gap-2 py-1.5 text-sm">
      <dt className="text-muted">{label}</dt>
      <dd className="min-w-0 break-all text-ink">{children}</dd>
    </div>
  );
}

/** "Where it came from": one row per value the brief kept; a line saying so when it kept none. */
export function BriefAttribution({ attribution }: { attribution: BriefRecord["attribution"] }) {
  const utm = UTM_KEYS.flatMap((key) => {
    const value = attribution?.utm?.[key];
    return value === undefined ? [] : [[`utm_${key}`, value] as const];
  });
  return (
    <section
      aria-labelledby="section-attribution"
      data-attribution
      className="rounded border border-slate-200 bg-white p-4"
    >
      <h2 id="section-attribution" className="text-sm font-semibold text-ink">
        Where it came from
      </h2>
      {attribution ? (
        <dl className="mt-2 divide-y divide-slate-100">
          {attribution.page === undefined ? null : <Row label="Page">{visibleText(attribution.page)}</Row>}
          {attribution.referrer === undefined ? null : (
            <Row label="Referrer">{visibleText(attribution.referrer)}</Row>
          )}
          {utm.map(([label, value]) => (
            <Row key={label} label={label}>
              {visibleText(value)}
            </Row>
          ))}
        </dl>
      ) : (
        <p className="mt-2 text-sm text-muted">Not recorded: the form sent no page, referrer or campaign.</p>
      )}
    </section>
  );
}

/** What caught a spam entry, in one sentence for the top of its page. */
export function SpamCaughtBy({ verdict }: { verdict: SpamVerdict }) {
  return (
    <p className="text-sm text-ink" data-caught-by={verdict.reason}>
      Caught by <strong className="font-semibold">{spamReasonText(verdict)}</strong>.
    </p>
  );
}
