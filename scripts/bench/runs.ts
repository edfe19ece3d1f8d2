import os from "node:os";
import { checkEmails, type EmailCheck } from "./emails";
import { ProcessTreeCpu } from "./proc";
import { type LoadSettings, measureRoute, type RouteMeasurement, warmUp } from "./route-cpu";
import { type Scenarios, scenarios } from "./scenarios";
import { type BenchSurroundings, type ServerKind, startServer } from "./servers";
import { sleep } from "./traffic";

/**
 * The runs of the CPU measurement: in each, a fresh server of each configuration, health measured
 * first and last on it around its routes, each route's CPU time per request as a ratio to that
 * server's health; then the median of the runs.
 */

export type RouteKey = Exclude<keyof Scenarios, "health">;

/** Which server each route runs on, in the order they run; health is measured on the first two. */
const PLAN: { server: ServerKind; routes: RouteKey[]; secondary: boolean }[] = [
  { server: "filesystem", routes: ["contact", "newsletter", "contactPdf"], secondary: false },
  { server: "features", routes: ["contactPart2", "newsletterPart2"], secondary: false },
  { server: "limited", routes: ["flood"], secondary: true },
  { server: "blob", routes: ["contactBlob"], secondary: true },
];

/** Routes that are secondary information, left out with `--skip-secondary`. */
const SECONDARY_ROUTES: readonly RouteKey[] = ["contactPdf", "flood", "contactBlob"];

export interface ServerHealth {
  server: ServerKind;
  first: RouteMeasurement;
  last: RouteMeasurement;
  /** The mean of the first and last measurements' CPU ms per request. */
  cpuMsPerRequest: number;
}

export interface RunRow {
  key: RouteKey;
  server: ServerKind;
  measurement: RouteMeasurement;
  /** CPU ms per request over health's: its own server's, or the defaults server's for the servers without one. */
  vsHealth: number;
}

export interface CpuRun {
  run: number;
  loadAverageAtStart: number[];
  health: ServerHealth[];
  rows: RunRow[];
  /** The part-2 server's emails against its stored briefs and subscribers. */
  emails: EmailCheck | null;
  /** The processes of each server's tree at its start (one: `next start` serves in its own process). */
  treePids: Partial<Record<ServerKind, number[]>>;
}

export interface CpuSettings extends LoadSettings {
  runs: number;
  skipSecondary: boolean;
}

async function healthOf(
  server: ServerKind,
  measure: () => Promise<RouteMeasurement>,
  between: () => Promise<void>,
): Promise<ServerHealth> {
  const first = await measure();
  await between();
  const last = await measure();
  return { server, first, last, cpuMsPerRequest: (first.cpuMsPerRequest + last.cpuMsPerRequest) / 2 };
}

/** One run: every configuration on a fresh server, one after the other. */
export async function cpuRun(
  run: number,
  around: BenchSurroundings,
  settings: CpuSettings,
  routes: Scenarios,
): Promise<CpuRun> {
  const result: CpuRun = {
    run,
    loadAverageAtStart: os.loadavg(),
    health: [],
    rows: [],
    emails: null,
    treePids: {},
  };
  for (const step of PLAN) {
    const keys = step.routes.filter((key) => !settings.skipSecondary || !SECONDARY_ROUTES.includes(key));
    if (keys.length === 0) continue;
    const { app, inbox } = await startServer(step.server, around);
    try {
      const cpu = new ProcessTreeCpu(app.pid);
      result.treePids[step.server] = await cpu.pids();
      const measured: RunRow[] = [];
      const measureRoutes = async () => {
        for (const key of keys) {
          console.log(`  run ${run}, ${step.server} server: ${routes[key].name}`);
          await warmUp(app, routes[key], settings);
          measured.push({
            key,
            server: step.server,
            measurement: await measureRoute(app, cpu, routes[key], settings),
            vsHealth: NaN,
          });
        }
      };
      if (step.secondary) {
        await measureRoutes();
      } else {
        console.log(`  run ${run}, ${step.server} server: ${routes.health.name}, first and last`);
        await warmUp(app, routes.health, settings);
        result.health.push(
          await healthOf(step.server, () => measureRoute(app, cpu, routes.health, settings), measureRoutes),
        );
      }
      const health = result.health.find((each) => each.server === step.server) ?? result.health[0];
      for (const row of measured)
        row.vsHealth = row.measurement.cpuMsPerRequest / (health?.cpuMsPerRequest ?? NaN);
      result.rows.push(...measured);
      if (step.server === "features" && inbox) {
        // delivery.json may be written just after the last answers (recordDelivery's short wait).
        await sleep(1000);
        result.emails = await checkEmails(inbox, around.smtp);
        around.smtp.envelopes.length = 0; // each run's server is checked against its own emails
      }
    } finally {
      await app.stop();
    }
  }
  return result;
}

/** Runs `--runs` runs and returns them all; `summarise` takes their medians. */
export async function cpuRuns(around: BenchSurroundings, settings: CpuSettings): Promise<CpuRun[]> {
  const routes = await scenarios();
  const runs: CpuRun[] = [];
  for (let run = 1; run <= settings.runs; run++) runs.push(await cpuRun(run, around, settings, routes));
  return runs;
}

export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A route over the runs: the median of each figure (each taken on its own), and the ratios of every run. */
export interface RouteSummary {
  key: RouteKey;
  name: string;
  server: ServerKind;
  vsHealth: number;
  vsHealthRuns: number[];
  cpuMsPerRequest: number;
  requestsPerSecond: number;
  p99Ms: number;
  /** Summed over the runs: errors and timeouts, answers with another status than expected. */
  failures: number;
  unexpected: number;
}

export interface HealthSummary {
  server: ServerKind;
  cpuMsPerRequest: number;
  /** Each run's first and last CPU ms per request. */
  runs: [number, number][];
  requestsPerSecond: number;
  p99Ms: number;
}

export interface CpuSummary {
  routes: RouteSummary[];
  health: HealthSummary[];
  emails: EmailCheck | null;
}

function sumEmails(checks: readonly EmailCheck[]): EmailCheck | null {
  if (checks.length === 0) return null;
  const total = { ...(checks[0] as EmailCheck) };
  for (const check of checks.slice(1))
    for (const key of Object.keys(total) as (keyof EmailCheck)[]) total[key] += check[key];
  return total;
}

export function summarise(runs: readonly CpuRun[]): CpuSummary {
  const rows = runs.flatMap((run) => run.rows);
  const keys = [...new Set(rows.map((row) => row.key))];
  const routes = keys.map((key): RouteSummary => {
    const of = rows.filter((row) => row.key === key);
    const first = of[0] as RunRow;
    return {
      key,
      name: first.measurement.scenario,
      server: first.server,
      vsHealth: median(of.map((row) => row.vsHealth)),
      vsHealthRuns: of.map((row) => row.vsHealth),
      cpuMsPerRequest: median(of.map((row) => row.measurement.cpuMsPerRequest)),
      requestsPerSecond: median(of.map((row) => row.measurement.requestsPerSecond)),
      p99Ms: median(of.map((row) => row.measurement.latencyMs.p99)),
      failures: of.reduce((total, row) => total + row.measurement.errors + row.measurement.timeouts, 0),
      unexpected: of.reduce((total, row) => total + row.measurement.unexpected, 0),
    };
  });
  const servers = [...new Set(runs.flatMap((run) => run.health.map((each) => each.server)))];
  const health = servers.map((server): HealthSummary => {
    const of = runs.flatMap((run) => run.health.filter((each) => each.server === server));
    const both = of.flatMap((each) => [each.first, each.last]);
    return {
      server,
      cpuMsPerRequest: median(of.map((each) => each.cpuMsPerRequest)),
      runs: of.map((each) => [each.first.cpuMsPerRequest, each.last.cpuMsPerRequest]),
      requestsPerSecond: median(both.map((each) => each.requestsPerSecond)),
      p99Ms: median(both.map((each) => each.latencyMs.p99)),
    };
  });
  const emails = sumEmails(runs.flatMap((run) => (run.emails ? [run.emails] : [])));
  return { routes, health, emails };
}
