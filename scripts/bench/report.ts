import type { EmailCheck } from "./emails";
import type { ThroughputRow } from "./throughput";
import { MiB } from "./traffic";

/** What the bench prints: numbers as the table shows them, the throughput table, the email count. */

export const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
export const mib = (bytes: number) => `${fixed(bytes / MiB)} MiB`;

export function printThroughput(rows: ThroughputRow[]): void {
  const header = [
    "endpoint",
    "req/s",
    "vs health",
    "by CPU",
    "p50 ms",
    "p99 ms",
    "p99 vs health",
    "errors",
    "unexpected",
    "CPU ms/req",
    "of it JS thread",
    "load side ms/req",
  ];
  const lines = rows.map((row) => [
    row.scenario,
    fixed(row.requestsPerSecond, 0),
    `${fixed(row.throughputVsHealth * 100, 0)}%`,
    `${fixed(row.throughputVsHealthByCpu * 100, 0)}%`,
    fixed(row.latencyMs.p50, 0),
    fixed(row.latencyMs.p99, 0),
    `${fixed(row.p99VsHealth, 2)}x`,
    String(row.errors + row.timeouts),
    String(row.unexpected),
    fixed(row.serverCpuMsPerRequest, 2),
    fixed(row.mainThreadCpuMsPerRequest, 2),
    fixed(row.loadCpuMsPerRequest, 2),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column]?.length ?? 0)),
  );
  const format = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ");
  console.log(`\n${format(header)}\n${widths.map((width) => "-".repeat(width)).join("  ")}`);
  for (const line of lines) console.log(format(line));
  console.log(
    "\nvs health: req/s over health's. by CPU: the same ratio predicted from the server's JavaScript-thread" +
      "\nCPU time per request (the thread that saturates), which moves far less than req/s on a shared machine." +
      "\nload side: this process's CPU time per request (the load generator, and the stand-ins the row's server" +
      "\ncalls: Blob, siteverify, SMTP), which it takes from the same CPUs as the server.",
  );
  console.log("\nreq/s in each round (the spread is the machine's noise):");
  for (const row of rows) console.log(`  ${row.scenario}: ${row.roundsRequestsPerSecond.join(", ")}`);
}

export function printEmails(emails: EmailCheck): void {
  console.log(
    `\nEmails (part 2 server, whole run, warm-up included): ${emails.briefs} briefs stored, ` +
      `${emails.acknowledgedInDelivery} acknowledged in delivery.json, ${emails.acknowledgmentsReceived} ` +
      `acknowledgments received by the SMTP server, ${emails.briefsWithTheirEmail} briefs whose sender got one; ` +
      `${emails.subscribers} pending subscribers, ${emails.confirmationsReceived} confirmations received, ` +
      `${emails.subscribersWithTheirEmail} subscribers who got theirs; ${emails.otherEmails} other emails.`,
  );
}
