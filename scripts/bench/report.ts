import type { EmailCheck } from "./emails";
import type { RouteKey, CpuSummary } from "./runs";
import type { ServerKind } from "./servers";
import { MiB } from "./traffic";

/** What the bench prints: numbers as the table shows them, the CPU tables, the email count. */

export const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
export const mib = (bytes: number) => `${fixed(bytes / MiB)} MiB`;

function printTable(header: string[], lines: string[][]): void {
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
}

const ratio = (value: number) => `${fixed(value, 2)}x`;

/** The two configurations side by side: health, then contact and newsletter on each. */
export function printCpu(summary: CpuSummary): void {
  const figures = (server: ServerKind, key: RouteKey | "health"): string[] => {
    if (key === "health") {
      const health = summary.health.find((each) => each.server === server);
      if (!health) return ["-", "-", "-", "-"];
      return [
        "1.00x",
        fixed(health.cpuMsPerRequest, 3),
        fixed(health.requestsPerSecond, 0),
        fixed(health.p99Ms, 0),
      ];
    }
    const route = summary.routes.find((each) => each.key === key);
    if (!route) return ["-", "-", "-", "-"];
    return [
      ratio(route.vsHealth),
      fixed(route.cpuMsPerRequest, 3),
      fixed(route.requestsPerSecond, 0),
      fixed(route.p99Ms, 0),
    ];
  };
  const columns = ["vs health", "CPU ms/req", "req/s", "p99 ms"];
  printTable(
    ["route", ...columns.map((title) => `defaults ${title}`), ...columns.map((title) => `part 2 ${title}`)],
    [
      ["GET /api/health", ...figures("filesystem", "health"), ...figures("features", "health")],
      ["POST /api/contact", ...figures("filesystem", "contact"), ...figures("features", "contactPart2")],
      [
        "POST /api/newsletter",
        ...figures("filesystem", "newsletter"),
        ...figures("features", "newsletterPart2"),
      ],
    ],
  );
  const secondary = summary.routes.filter((route) =>
    ["contactPdf", "flood", "contactBlob"].includes(route.key),
  );
  if (secondary.length > 0) {
    printTable(
      ["secondary (ratio to the defaults server's health)", ...columns],
      secondary.map((route) => [route.name, ...figures(route.server, route.key)]),
    );
  }
  console.log(
    "\nCPU ms/req: user + system CPU time of the server's `next start` process tree over the requests it" +
      "\nanswered (2xx; 429 for the flood); vs health: that over the same server's GET /api/health (measured" +
      "\nfirst and last, averaged); every figure the median of the runs, each taken on its own.",
  );
  console.log("\nEach run's ratios, and health's CPU ms/req first and last:");
  for (const health of summary.health)
    console.log(
      `  health on ${health.server}: ${health.runs.map(([first, last]) => `${fixed(first, 3)}/${fixed(last, 3)}`).join(", ")}`,
    );
  for (const route of summary.routes)
    console.log(`  ${route.name} (${route.server}): ${route.vsHealthRuns.map(ratio).join(", ")}`);
}

export function printEmails(emails: EmailCheck): void {
  console.log(
    `\nEmails (part 2 servers, every run, warm-ups included): ${emails.briefs} briefs stored, ` +
      `${emails.acknowledgedInDelivery} acknowledged in delivery.json, ${emails.acknowledgmentsReceived} ` +
      `acknowledgments received by the SMTP server, ${emails.briefsWithTheirEmail} briefs whose sender got one; ` +
      `${emails.subscribers} pending subscribers, ${emails.confirmationsReceived} confirmations received, ` +
      `${emails.subscribersWithTheirEmail} subscribers who got theirs; ${emails.otherEmails} other emails.`,
  );
}
