import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { nextAddress } from "./contact";

/** POSTs a body to /api/newsletter from a fresh client address (JSON unless told otherwise). */
export async function postNewsletter(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}/api/newsletter`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", "x-forwarded-for": nextAddress(), ...headers },
  });
}

/** Where a subscriber is stored, computed independently of the app's code. */
export function subscriberFile(inbox: string, email: string): string {
  const key = createHash("sha256").update(email.toLowerCase()).digest("hex");
  return join(inbox, "newsletter", "subscribers", `${key}.json`);
}

export async function readSubscriber(inbox: string, email: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(subscriberFile(inbox, email), "utf8")) as Record<string, unknown>;
}
