import autocannon, { type Result } from "autocannon";
import type { AppServer } from "../../tests/support/server";
import type { ProcessTreeCpu } from "./proc";
import type { Scenario } from "./scenarios";
import { sleep } from "./traffic";

/** One route loaded for a fixed time, with the CPU time its server's process tree spent meanwhile. */

/** How hard and how long each route is loaded (`--connections`, `--duration`, `--warm-up`). */
export interface LoadSettings {
  connections: number;
  duration: number;
  warmUp: number;
}

export interface RouteMeasurement {
  scenario: string;
  seconds: number;
  /** Answers with the scenario's status (2xx; 429 for the flood). */
  answered: number;
  /**
   * Requests sent but not yet answered when the load stopped: autocannon drops their connections,
   * but each body was sent whole and the server finishes them, so their CPU time is in `cpuMs` and
   * they count as answered in `cpuMsPerRequest` (at most `--connections` of them).
   */
  cutOff: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Answers with another status than the scenario expects. */
  unexpected: number;
  /** User + system CPU time of the server's whole process tree over the measurement. */
  cpuMs: number;
  cpuMsPerRequest: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number };
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

/**
 * Waits until the server has finished what it still had to do (requests cut off at the end, work
 * done after an answer such as a brief's delivery record): until its CPU time stops growing over
 * 250 ms, at most 5 s. An idle `next start` uses no measurable CPU in that time.
 */
async function settled(cpu: ProcessTreeCpu): Promise<number> {
  let last = await cpu.milliseconds();
  const deadline = performance.now() + 5_000;
  while (performance.now() < deadline) {
    await sleep(250);
    const now = await cpu.milliseconds();
    if (now - last <= 10) return now;
    last = now;
  }
  return last;
}

/** Loads `scenario` for `seconds` without measuring, so V8 has optimised the route's code. */
export async function warmUp(app: AppServer, scenario: Scenario, settings: LoadSettings): Promise<void> {
  if (settings.warmUp === 0) return;
  const { connections, warmUp: duration } = settings;
  await autocannon({ url: app.url, connections, duration, timeout: 30, requests: scenario.requests });
}

/** Loads `scenario` for `--duration` seconds and divides the tree's CPU time by what was answered. */
export async function measureRoute(
  app: AppServer,
  cpu: ProcessTreeCpu,
  scenario: Scenario,
  { connections, duration }: LoadSettings,
): Promise<RouteMeasurement> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const cpuBefore = await settled(cpu);
  const instance = autocannon({
    url: app.url,
    connections,
    duration,
    timeout: 30,
    requests: scenario.requests,
  });
  instance.on("response", (_client, status, _bytes, responseTime) => {
    latencies.push(responseTime);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const result: Result = await instance;
  const cpuMs = (await settled(cpu)) - cpuBefore;

  latencies.sort((a, b) => a - b);
  const statusCodes = Object.fromEntries([...statuses].map(([status, count]) => [String(status), count]));
  const answered = statuses.get(scenario.expectedStatus) ?? 0;
  // The flood's first five answers (while the window still has room) are 200s.
  const allowed = answered + (scenario.expectedStatus === 429 ? (statuses.get(200) ?? 0) : 0);
  const cutOff = Math.max(0, result.requests.sent - latencies.length - result.errors - result.timeouts);
  return {
    scenario: scenario.name,
    seconds: result.duration,
    answered,
    cutOff,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    unexpected: latencies.length - allowed,
    cpuMs,
    cpuMsPerRequest: cpuMs / (answered + cutOff),
    requestsPerSecond: latencies.length / result.duration,
    latencyMs: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) },
  };
}
