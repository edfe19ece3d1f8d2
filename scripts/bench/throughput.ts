import autocannon, { type Result } from "autocannon";
import type { AppServer } from "../../tests/support/server";
import { cpuMilliseconds } from "./proc";
import { type Scenario, scenarios } from "./scenarios";
import type { MeasuredServer, ServerKind } from "./servers";
import { sleep } from "./traffic";

/** How hard and how long the throughput rounds load each endpoint (`--connections`, `--duration`, `--rounds`). */
export interface LoadSettings {
  connections: number;
  duration: number;
  rounds: number;
}

export interface ThroughputRow {
  scenario: string;
  /** Completed requests divided by the seconds measured. */
  requestsPerSecond: number;
  /** Requests/s of each round, to show how much the machine's load moved them. */
  roundsRequestsPerSecond: number[];
  requests: number;
  latencyMs: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Answers with another status than the scenario expects (non-2xx, or non-429 for the flood). */
  unexpected: number;
  statusCodes: Record<string, number>;
  /** Requests/s as a fraction of GET /api/health's. */
  throughputVsHealth: number;
  /**
   * The same ratio predicted from CPU time: health's JS-thread milliseconds per request over this
   * endpoint's. The JS thread is what saturates, and CPU time per request moves far less than
   * requests/s when other work shares the machine.
   */
  throughputVsHealthByCpu: number;
  /** p99 latency as a multiple of GET /api/health's. */
  p99VsHealth: number;
  /** The server's CPU time per completed request: every thread, and its JavaScript (main) thread. */
  serverCpuMsPerRequest: number;
  mainThreadCpuMsPerRequest: number;
  /**
   * This process's CPU time per completed request: the load generator, and the stand-ins that answer
   * the server (siteverify, SMTP, Blob) for the rows that use them. On one machine it shares the
   * CPUs with the server.
   */
  loadCpuMsPerRequest: number;
}

/** Seconds each scenario runs before anything is measured, so V8 has optimised the route's code. */
const WARM_UP_SECONDS = 3;

interface Round {
  seconds: number;
  latencies: number[];
  statuses: Map<number, number>;
  errors: number;
  timeouts: number;
  cpuMs: number;
  mainCpuMs: number;
  loadCpuMs: number;
}

async function round(
  app: AppServer,
  pid: number,
  scenario: Scenario,
  seconds: number,
  connections: number,
): Promise<Round> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const cpuBefore = await cpuMilliseconds(pid);
  const mainBefore = await cpuMilliseconds(pid, pid);
  const loadBefore = process.cpuUsage();
  const instance = autocannon({
    url: app.url,
    connections,
    duration: seconds,
    timeout: 30,
    requests: scenario.requests,
  });
  instance.on("response", (_client, status, _bytes, responseTime) => {
    latencies.push(responseTime);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const result: Result = await instance;
  const load = process.cpuUsage(loadBefore);
  return {
    seconds: result.duration,
    latencies,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    cpuMs: (await cpuMilliseconds(pid)) - cpuBefore,
    mainCpuMs: (await cpuMilliseconds(pid, pid)) - mainBefore,
    loadCpuMs: (load.user + load.system) / 1000,
  };
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

function summarise(scenario: Scenario, rounds: Round[]): ThroughputRow {
  const latencies = rounds.flatMap((each) => each.latencies).sort((a, b) => a - b);
  const statusCodes: Record<string, number> = {};
  for (const each of rounds) {
    for (const [status, count] of each.statuses) statusCodes[status] = (statusCodes[status] ?? 0) + count;
  }
  const requests = latencies.length;
  const sum = (pick: (each: Round) => number) => rounds.reduce((total, each) => total + pick(each), 0);
  return {
    scenario: scenario.name,
    requestsPerSecond: requests / sum((each) => each.seconds),
    roundsRequestsPerSecond: rounds.map((each) => Math.round(each.latencies.length / each.seconds)),
    requests,
    latencyMs: {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies.at(-1) ?? NaN,
    },
    errors: sum((each) => each.errors),
    timeouts: sum((each) => each.timeouts),
    non2xx: Object.entries(statusCodes).reduce(
      (total, [status, count]) => total + (status.startsWith("2") ? 0 : count),
      0,
    ),
    unexpected: Object.entries(statusCodes).reduce(
      (total, [status, count]) =>
        total +
        (status === String(scenario.expectedStatus) || (scenario.expectedStatus === 429 && status === "200")
          ? 0
          : count),
      0,
    ),
    statusCodes,
    throughputVsHealth: NaN,
    throughputVsHealthByCpu: NaN,
    p99VsHealth: NaN,
    serverCpuMsPerRequest: requests > 0 ? sum((each) => each.cpuMs) / requests : NaN,
    mainThreadCpuMsPerRequest: requests > 0 ? sum((each) => each.mainCpuMs) / requests : NaN,
    loadCpuMsPerRequest: requests > 0 ? sum((each) => each.loadCpuMs) / requests : NaN,
  };
}

/**
 * Warms every route up, then measures the scenarios in interleaved rounds (health, contact, ...,
 * health, contact, ...), so that a burst of load from elsewhere on a shared machine falls on all of
 * them alike instead of on whichever happened to run at that moment.
 */
export async function measureThroughput(
  servers: Record<ServerKind, MeasuredServer>,
  { connections, duration, rounds }: LoadSettings,
): Promise<ThroughputRow[]> {
  const list = await scenarios();
  console.log(`  warming up: ${WARM_UP_SECONDS} s per endpoint`);
  for (const scenario of list) {
    const { app } = servers[scenario.server];
    await autocannon({ url: app.url, connections, duration: WARM_UP_SECONDS, requests: scenario.requests });
  }
  const seconds = duration / rounds;
  console.log(`  measuring: ${rounds} rounds of ${seconds} s per endpoint at ${connections} connections`);
  const measured = list.map(() => [] as Round[]);
  for (let index = 0; index < rounds; index++) {
    for (const [position, scenario] of list.entries()) {
      const { app, pid } = servers[scenario.server];
      measured[position]?.push(await round(app, pid, scenario, seconds, connections));
      await sleep(200);
    }
    process.stdout.write(`  round ${index + 1}/${rounds} done\n`);
  }
  const rows = list.map((scenario, position) => summarise(scenario, measured[position] ?? []));
  const health = rows[0] as ThroughputRow;
  for (const row of rows) {
    row.throughputVsHealth = row.requestsPerSecond / health.requestsPerSecond;
    row.throughputVsHealthByCpu = health.mainThreadCpuMsPerRequest / row.mainThreadCpuMsPerRequest;
    row.p99VsHealth = row.latencyMs.p99 / health.latencyMs.p99;
  }
  return rows;
}
