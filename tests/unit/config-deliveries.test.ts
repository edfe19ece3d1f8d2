import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/config";
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from "@/lib/config/deliveries";
import { leaseFor } from "@/lib/deliveries/lease";

/** Part 4's variables: DELIVERY_RETRY_SCHEDULE, and QStash's four (lib/config/deliveries.ts). */

type Env = Record<string, string | undefined>;

const s = 1_000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

const QSTASH = {
  QSTASH_TOKEN: "qstash-token",
  QSTASH_CURRENT_SIGNING_KEY: "sig_current",
  QSTASH_NEXT_SIGNING_KEY: "sig_next",
};

/** The ConfigError's message for `env`; fails the test when parsing succeeds or throws anything else. */
function configError(env: Env): string {
  try {
    parseConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(env)}`);
}

describe("parseRetrySchedule", () => {
  it.each<[string, number[]]>([
    [DEFAULT_RETRY_SCHEDULE, [5 * s, 5 * m, 30 * m, 2 * h, 5 * h, 10 * h, 10 * h]],
    ["1s,1s,1s", [s, s, s]],
    ["1s", [s]],
    [" 2s , 3M ,1H,1d ", [2 * s, 3 * m, h, d]],
    ["7d", [7 * d]],
    ["168h", [7 * d]],
    ["off", []],
    [" OFF ", []],
    [Array(19).fill("1s").join(","), Array<number>(19).fill(s)],
  ])("%j -> %j", (text, waits) => {
    expect(parseRetrySchedule(text)).toEqual(waits);
  });

  it.each<[string, string]>([
    ["", "an empty step"],
    ["5s,,5m", "an empty step"],
    ["5s,", "an empty step"],
    ["5", '"5" is not a wait'],
    ["5 s", '"5 s" is not a wait'],
    ["1.5s", '"1.5s" is not a wait'],
    ["-5s", '"-5s" is not a wait'],
    ["5sec", '"5sec" is not a wait'],
    ["5s;5m", '"5s;5m" is not a wait'],
    ["5w", '"5w" is not a wait'],
    ["none", '"none" is not a wait'],
    ["0s", '"0s" is no wait at all'],
    ["8d", '"8d" is over 7 days'],
    ["169h", '"169h" is over 7 days'],
    [Array(20).fill("1s").join(","), "20 steps, at most 19"],
  ])("%j is refused: %s", (text, detail) => {
    expect(() => parseRetrySchedule(text)).toThrow(detail);
    expect(() => parseRetrySchedule(text)).toThrow(/^DELIVERY_RETRY_SCHEDULE must be/);
  });
});

describe("parseConfig: the retry schedule", () => {
  it.each<[string, Env]>([
    ["unset", {}],
    ["empty", { DELIVERY_RETRY_SCHEDULE: "" }],
  ])("%s is the contract's default", (_, env) => {
    expect(parseConfig(env).retrySchedule).toEqual([5 * s, 5 * m, 30 * m, 2 * h, 5 * h, 10 * h, 10 * h]);
  });

  it("is read from DELIVERY_RETRY_SCHEDULE", () => {
    expect(parseConfig({ DELIVERY_RETRY_SCHEDULE: "1s,2m" }).retrySchedule).toEqual([s, 2 * m]);
    expect(parseConfig({ DELIVERY_RETRY_SCHEDULE: "off" }).retrySchedule).toEqual([]);
  });

  it("malformed stops the start, naming the variable and the step, with the other problems", () => {
    const message = configError({ DELIVERY_RETRY_SCHEDULE: "5s,soon", NOTIFY_TIMEOUT_MS: "fast" });
    expect(message).toContain("DELIVERY_RETRY_SCHEDULE");
    expect(message).toContain('"soon"');
    expect(message).toContain("NOTIFY_TIMEOUT_MS");
  });
});

describe("parseConfig: NOTIFY_TIMEOUT_MS within what a delivery claim can cover", () => {
  it("takes up to 280 s: two sends of it plus the attempt's store calls fit a 10-minute lease", () => {
    expect(parseConfig({ NOTIFY_TIMEOUT_MS: "280000" }).notifyTimeoutMs).toBe(280_000);
    expect(leaseFor(280_000)).toBeLessThanOrEqual(10 * m);
    expect(leaseFor(75_000)).toBeGreaterThan(2 * 75_000);
    expect(leaseFor(5_000)).toBe(60 * s);
  });

  it.each(["280001", "600000"])("refuses %s at the start, naming it and why", (value) => {
    const message = configError({ NOTIFY_TIMEOUT_MS: value });
    expect(message).toContain("NOTIFY_TIMEOUT_MS must be at most 280000");
    expect(message).toContain("lease");
  });
});

describe("parseConfig: QStash", () => {
  it("is off without its variables", () => {
    expect(parseConfig({}).qstash).toBeNull();
    expect(parseConfig({ QSTASH_TOKEN: "", QSTASH_URL: " " }).qstash).toBeNull();
  });

  it("is on with the token and both signing keys; QSTASH_URL unset is QStash's own", () => {
    expect(parseConfig(QSTASH).qstash).toEqual({
      token: "qstash-token",
      currentSigningKey: "sig_current",
      nextSigningKey: "sig_next",
      url: null,
    });
  });

  it.each([
    ["https://qstash-eu.example", "https://qstash-eu.example"],
    ["https://qstash-eu.example/", "https://qstash-eu.example"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080"],
  ])("QSTASH_URL %j is used as %j", (url, expected) => {
    expect(parseConfig({ ...QSTASH, QSTASH_URL: url }).qstash?.url).toBe(expected);
  });

  it.each<[string, Env, string[]]>([
    ["the token alone", { QSTASH_TOKEN: "t" }, ["QSTASH_CURRENT_SIGNING_KEY", "QSTASH_NEXT_SIGNING_KEY"]],
    [
      "the keys without the token",
      { QSTASH_CURRENT_SIGNING_KEY: "a", QSTASH_NEXT_SIGNING_KEY: "b" },
      ["QSTASH_TOKEN"],
    ],
    ["no next key", { QSTASH_TOKEN: "t", QSTASH_CURRENT_SIGNING_KEY: "a" }, ["QSTASH_NEXT_SIGNING_KEY"]],
    ["no current key", { QSTASH_TOKEN: "t", QSTASH_NEXT_SIGNING_KEY: "b" }, ["QSTASH_CURRENT_SIGNING_KEY"]],
    ["QSTASH_URL alone", { QSTASH_URL: "https://qstash-eu.example" }, ["QSTASH_URL is set without"]],
    ["a QSTASH_URL that is no URL", { ...QSTASH, QSTASH_URL: "qstash" }, ["QSTASH_URL"]],
    ["a QSTASH_URL that is not http", { ...QSTASH, QSTASH_URL: "ftp://qstash.example" }, ["QSTASH_URL"]],
    [
      "a QSTASH_URL with the publish path in it",
      { ...QSTASH, QSTASH_URL: "https://qstash.upstash.io/v1/publish/" },
      ["QSTASH_URL must be QStash's address without a path"],
    ],
    [
      "a QSTASH_URL with a path",
      { ...QSTASH, QSTASH_URL: "https://qstash.upstash.io/v2" },
      ["QSTASH_URL must be QStash's address without a path"],
    ],
  ])("%s stops the start, naming what is missing or wrong", (_, env, named) => {
    const message = configError(env);
    for (const text of named) expect(message).toContain(text);
  });

  it("half set names only the missing variables as not set", () => {
    const message = configError({ QSTASH_TOKEN: "t", QSTASH_CURRENT_SIGNING_KEY: "a" });
    expect(message).toMatch(/QSTASH_NEXT_SIGNING_KEY not set/);
    expect(message).not.toMatch(/QSTASH_TOKEN[^,]* not set/);
  });
});
