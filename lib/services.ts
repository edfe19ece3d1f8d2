import { randomBytes } from "node:crypto";
import { type Config, getConfig } from "./config";
import { createStore, type ObjectStore } from "./inbox";
import { type Channel, createChannels } from "./notify";
import { createRateLimiters, type RateLimiters } from "./ratelimit";

/** The integrations the routes use, built once per process from the configuration. */
export interface Services {
  config: Config;
  store: ObjectStore;
  limiters: RateLimiters;
  /** The configured notification channels, in the order webhook, email. */
  channels: readonly Channel[];
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
  return {
    config,
    store: createStore(config),
    limiters: createRateLimiters(config),
    channels: createChannels(config),
    ipHashSalt,
  };
}

let services: Services | undefined;

export function getServices(): Services {
  services ??= createServices(getConfig());
  return services;
}
