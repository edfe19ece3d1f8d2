import { rm } from "node:fs/promises";
import { E2E_INBOX } from "./env";

/** Each run starts with an empty inbox, so what a test finds there is its own. */
export default async function globalSetup(): Promise<void> {
  await rm(E2E_INBOX, { recursive: true, force: true });
}
