import { parseArgs } from "node:util";

/** What `npm run bench` was asked to do: run lengths, load, what to skip, where to write. */
export interface BenchSettings {
  duration: number;
  connections: number;
  rounds: number;
  uploads: number;
  build: boolean;
  skipThroughput: boolean;
  skipMemory: boolean;
  skipInbox: boolean;
  output: string;
}

function wholeNumber(name: string, value: string, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > max) {
    console.error(`--${name} must be a whole number from 1 to ${max}, got "${value}"`);
    process.exit(2);
  }
  return number;
}

/** The command line's flags, checked; a malformed one ends the process with status 2. */
export function readSettings(): BenchSettings {
  const { values: flags } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      connections: { type: "string", default: "32" },
      rounds: { type: "string", default: "5" },
      uploads: { type: "string", default: "16" },
      build: { type: "boolean", default: false },
      "skip-throughput": { type: "boolean", default: false },
      "skip-memory": { type: "boolean", default: false },
      "skip-inbox": { type: "boolean", default: false },
      output: { type: "string", default: "bench/results.json" },
    },
  });
  const duration = wholeNumber("duration", flags.duration, 120);
  const connections = wholeNumber("connections", flags.connections, 512);
  const rounds = wholeNumber("rounds", flags.rounds, 60);
  const uploads = wholeNumber("uploads", flags.uploads, 64);
  if (duration % rounds !== 0) {
    console.error(`--duration (${duration}) must be a multiple of --rounds (${rounds})`);
    process.exit(2);
  }
  return {
    duration,
    connections,
    rounds,
    uploads,
    build: flags.build,
    skipThroughput: flags["skip-throughput"],
    skipMemory: flags["skip-memory"],
    skipInbox: flags["skip-inbox"],
    output: flags.output,
  };
}
