import type { ConfigReader } from "./reader";
import type { Config } from "./types";
import { httpUrl } from "./values";

/** Part 4's schedule: the waits between attempts, each counted from the previous failure. */
export const DEFAULT_RETRY_SCHEDULE = "5s,5m,30m,2h,5h,10h,10h";

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The longest single wait taken: past a week, a brief's sender has long given up on an answer. */
const MAX_STEP_MS = 7 * UNIT_MS.d;

/** At most this many retries: the delivery log keeps 20 attempts. */
const MAX_STEPS = 19;

/**
 * `DELIVERY_RETRY_SCHEDULE` as milliseconds: `5s,5m,30m,2h` (whole numbers of `s`, `m`, `h` or
 * `d`), or `off` for none (`[]`). Throws a sentence naming the variable when it is malformed.
 */
export function parseRetrySchedule(text: string): number[] {
  const value = text.trim().toLowerCase();
  if (value === "off") return [];
  const steps = value.split(",").map((item) => item.trim());
  const problem = (detail: string) =>
    new Error(
      `DELIVERY_RETRY_SCHEDULE must be comma-separated waits such as ${DEFAULT_RETRY_SCHEDULE} (whole numbers of s, m, h or d), or off: ${detail}`,
    );
  if (steps.length > MAX_STEPS) throw problem(`${steps.length} steps, at most ${MAX_STEPS}`);
  return steps.map((step) => {
    const match = /^(\d{1,6})(s|m|h|d)$/.exec(step);
    if (!match) throw problem(step === "" ? "an empty step" : `"${step}" is not a wait`);
    const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
    if (ms === 0) throw problem(`"${step}" is no wait at all`);
    if (ms > MAX_STEP_MS) throw problem(`"${step}" is over 7 days`);
    return ms;
  });
}

/** The retry schedule, and Upstash QStash when all three of its variables are set. */
export function parseDeliveries({
  raw,
  problems,
  read,
}: ConfigReader): Pick<Config, "retrySchedule" | "qstash"> {
  let retrySchedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
  if (raw.DELIVERY_RETRY_SCHEDULE !== undefined) {
    try {
      retrySchedule = parseRetrySchedule(raw.DELIVERY_RETRY_SCHEDULE);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  const qstashVariables = {
    QSTASH_TOKEN: raw.QSTASH_TOKEN,
    QSTASH_CURRENT_SIGNING_KEY: raw.QSTASH_CURRENT_SIGNING_KEY,
    QSTASH_NEXT_SIGNING_KEY: raw.QSTASH_NEXT_SIGNING_KEY,
  };
  const missing = Object.entries(qstashVariables)
    .filter(([, value]) => !value)
    .map(([name]) => name);
  let url = read(raw.QSTASH_URL, httpUrl("QSTASH_URL"), null);
  // The client adds `/v2/publish/…` itself: an address copied from an old guide with that path (or
  // `/v1/publish`) in it would send every retry nowhere, which only shows as a logged failure.
  if (url && url.pathname !== "/") {
    problems.push(
      `QSTASH_URL must be QStash's address without a path, such as https://qstash.upstash.io, got "${raw.QSTASH_URL}"`,
    );
    url = null;
  }
  let qstash: Config["qstash"] = null;
  if (missing.length === 0) {
    qstash = {
      token: raw.QSTASH_TOKEN as string,
      currentSigningKey: raw.QSTASH_CURRENT_SIGNING_KEY as string,
      nextSigningKey: raw.QSTASH_NEXT_SIGNING_KEY as string,
      url: url?.href.replace(/\/$/, "") ?? null,
    };
  } else if (missing.length < 3) {
    problems.push(
      `QStash needs QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY and QSTASH_NEXT_SIGNING_KEY together: ${missing.join(" and ")} not set`,
    );
  } else if (raw.QSTASH_URL) {
    problems.push(
      "QSTASH_URL is set without QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY and QSTASH_NEXT_SIGNING_KEY",
    );
  }
  return { retrySchedule, qstash };
}
