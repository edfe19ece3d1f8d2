import { parseArgs } from "node:util";

/** What `npm run bench` was asked to do: run lengths, load, what to skip, where to write. */
export interface BenchSettings {
  /** Seconds each route is measured, per run. */
  duration: number;
  /** Seconds each route is loaded, unmeasured, before its measurement (0: none). */
  warmUp: number;
  runs: number;
  connections: number;
  /** Concurrent 10 MiB uploads (the secondary memory figure), and concurrent 1 MiB ones (the target). */
  uploads: number;
  uploads1MiB: number;
  build: boolean;
  skipThroughput: boolean;
  skipSecondary: boolean;
  skipMemory: boolean;
  skipColdStart: boolean;
  skipInbox: boolean;
  output: string;
}

function wholeNumber(name: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max}, got "${value}"`);
    process.exit(2);
  }
  return number;
}

/** The command line's flags, checked; a malformed one ends the process with status 2. */
export function readSettings(): BenchSettings {
  const { values: flags } = parseArgs({
    options: {
      duration: { type: "string", default: "8" },
      "warm-up": { type: "string", default: "10" },
      runs: { type: "string", default: "3" },
      connections: { type: "string", default: "32" },
      uploads: { type: "string", default: "16" },
      "uploads-1mib": { type: "string", default: "32" },
      build: { type: "boolean", default: false },
      "skip-throughput": { type: "boolean", default: false },
      "skip-secondary": { type: "boolean", default: false },
      "skip-memory": { type: "boolean", default: false },
      "skip-cold-start": { type: "boolean", default: false },
      "skip-inbox": { type: "boolean", default: false },
      output: { type: "string", default: "bench/results.json" },
    },
  });
  return {
    duration: wholeNumber("duration", flags.duration, 1, 120),
    warmUp: wholeNumber("warm-up", flags["warm-up"], 0, 60),
    runs: wholeNumber("runs", flags.runs, 1, 9),
    connections: wholeNumber("connections", flags.connections, 1, 512),
    uploads: wholeNumber("uploads", flags.uploads, 1, 64),
    uploads1MiB: wholeNumber("uploads-1mib", flags["uploads-1mib"], 1, 256),
    build: flags.build,
    skipThroughput: flags["skip-throughput"],
    skipSecondary: flags["skip-secondary"],
    skipMemory: flags["skip-memory"],
    skipColdStart: flags["skip-cold-start"],
    skipInbox: flags["skip-inbox"],
    output: flags.output,
  };
}
