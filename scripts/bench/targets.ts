import type { EmailCheck } from "./emails";
import type { MemoryResult } from "./memory";
import type { OversizeResult } from "./oversize";
import { fixed, mib } from "./report";
import type { ThroughputRow } from "./throughput";
import { KiB, MiB } from "./traffic";

/** The targets a run is held to, each with what was measured and whether it was met. */

export interface Target {
  target: string;
  measured: string;
  met: boolean;
}

export function targets(
  rows: ThroughputRow[] | null,
  memory: readonly MemoryResult[],
  oversize: OversizeResult | null,
  emails: EmailCheck | null,
): Target[] {
  const list: Target[] = [];
  const row = (name: string) => rows?.find((candidate) => candidate.scenario === name);
  const contact = row("POST /api/contact");
  const newsletter = row("POST /api/newsletter (new address)");
  if (contact) {
    list.push({
      target: "contact without a file >= 60% of health's req/s",
      measured: `${fixed(contact.throughputVsHealth * 100, 0)}% (by CPU time: ${fixed(contact.throughputVsHealthByCpu * 100, 0)}%)`,
      met: contact.throughputVsHealth >= 0.6,
    });
    list.push({
      target: "contact without a file: p99 <= 2x health's p99",
      measured: `${fixed(contact.p99VsHealth, 2)}x`,
      met: contact.p99VsHealth <= 2,
    });
  }
  if (newsletter) {
    list.push({
      target: "newsletter >= 80% of health's req/s",
      measured: `${fixed(newsletter.throughputVsHealth * 100, 0)}% (by CPU time: ${fixed(newsletter.throughputVsHealthByCpu * 100, 0)}%)`,
      met: newsletter.throughputVsHealth >= 0.8,
    });
  }
  const withFeatures = [
    { name: "POST /api/contact (Turnstile + acknowledgment)", label: "contact", share: 0.6 },
    { name: "POST /api/newsletter (Turnstile + double opt-in)", label: "newsletter", share: 0.8 },
  ];
  for (const { name, label, share } of withFeatures) {
    const measured = row(name);
    if (!measured) continue;
    list.push({
      target: `part 2 on: ${label} >= ${fixed(share * 100, 0)}% of health's req/s`,
      measured: `${fixed(measured.throughputVsHealth * 100, 0)}% (by CPU time: ${fixed(measured.throughputVsHealthByCpu * 100, 0)}%)`,
      met: measured.throughputVsHealth >= share,
    });
  }
  if (rows) {
    const failures = rows.reduce((total, each) => total + each.errors + each.timeouts + each.unexpected, 0);
    list.push({
      target: "no errors, timeouts or unexpected statuses (2xx; 429 for the flood)",
      measured: String(failures),
      met: failures === 0,
    });
  }
  if (emails) {
    list.push({
      target: "part 2 on: every stored brief acknowledged, every new subscriber sent its confirmation",
      measured:
        `${emails.briefsWithTheirEmail} of ${emails.briefs} briefs (${emails.acknowledgedInDelivery} acknowledged in delivery.json), ` +
        `${emails.subscribersWithTheirEmail} of ${emails.subscribers} subscribers; ` +
        `${emails.acknowledgmentsReceived + emails.confirmationsReceived + emails.otherEmails} emails received`,
      met:
        emails.briefs > 0 &&
        emails.subscribers > 0 &&
        emails.briefsWithTheirEmail === emails.briefs &&
        emails.acknowledgedInDelivery === emails.briefs &&
        emails.acknowledgmentsReceived === emails.briefs &&
        emails.subscribersWithTheirEmail === emails.subscribers &&
        emails.confirmationsReceived === emails.subscribers &&
        emails.otherEmails === 0,
    });
  }
  for (const inbox of ["filesystem", "blob"] as const) {
    const runs = memory.filter((each) => each.inbox === inbox).sort((a, b) => b.uploads - a.uploads);
    const [full, quarter] = runs;
    if (!full) continue;
    // What each further upload adds, with the garbage level that does not grow with them taken out.
    const marginal =
      quarter && full.uploads > quarter.uploads
        ? (full.peakAboveIdleBytes - quarter.peakAboveIdleBytes) /
          (full.bytesInFlight - quarter.bytesInFlight)
        : NaN;
    list.push({
      target: `${inbox} inbox: peak memory above idle <= 0.25x the ${mib(full.bytesInFlight)} of files in flight`,
      measured:
        `${mib(full.peakAboveIdleBytes)} = ${fixed(full.ratioToBytesInFlight, 2)}x` +
        (quarter
          ? ` (${quarter.uploads} uploads: ${mib(quarter.peakAboveIdleBytes)}; each further upload ${fixed(marginal, 2)}x of its bytes)`
          : ""),
      met: full.ratioToBytesInFlight <= 0.25 && runs.every((each) => each.statuses["200"] === each.uploads),
    });
  }
  if (oversize) {
    list.push({
      target: "declared 100 MiB body: 413 having read < 1 MiB",
      measured: `${oversize.status}, server read ${fixed(oversize.serverBytesRead / KiB)} KiB, client sent ${fixed(oversize.clientBytesSent / KiB)} KiB`,
      met: oversize.status === 413 && oversize.serverBytesRead < MiB,
    });
  }
  return list;
}
