import { randomBytes } from "node:crypto";
import { type Config, getConfig } from "./config";
import { createStore, type ObjectStore } from "./inbox";
import { createRateLimiters, type RateLimiters } from "./ratelimit";

/** The integrations the routes use, built once per process from the configuration. */
export interface Services {
  config: Config;
  store: ObjectStore;
  limiters: RateLimiters;
  /** Salt for `client.ipHash`. */
  ipHashSalt: string;
}

export function createServices(config: Config): Services {
  for (const warning of config.warnings) console.warn(`[config] ${warning}`);
  let ipHashSalt = config.ipHashSalt;
  if (ipHashSalt === null) {
    console.warn(
      "[config] IP_HASH_SALT is not set: client addresses are hashed with a random salt that changes on every restart",
    );
    ipHashSalt = randomBytes(32).toString("hex");
  }
  return { config, store: createStore(config), limiters: createRateLimiters(config), ipHashSalt };
}

let services: Services | undefined;

export function getServices(): Services {
  services ??= createServices(getConfig());
  return services;
}
