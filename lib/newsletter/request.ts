import { parseJsonObject } from "../http/body";
import { validationFailed } from "../http/errors";
import { linkTokenSchema, newsletterSchema, type Subscription } from "../schemas/newsletter";
import { fieldMessages } from "../schemas/text";

/** 16 KiB: an address and eight topic names fit many times over. */
export const NEWSLETTER_BODY_LIMIT = 16 * 1024;

/**
 * A subscription request's JSON body to a valid subscription. Text that is not JSON, and JSON that
 * is not an object (an array, a string, `null`), is 400: neither has fields to point at. An object
 * that breaks a field rule is 422 with every broken field. Keys other than `email` and `topics` are
 * ignored.
 */
export function parseSubscription(body: string): Subscription {
  const value = parseJsonObject(body, '{"email": "name@example.com"}');
  const parsed = newsletterSchema.safeParse(value);
  if (!parsed.success) throw validationFailed(fieldMessages(parsed.error));
  return parsed.data;
}

/**
 * The footer form posted by a browser without JavaScript (`application/x-www-form-urlencoded`,
 * `topics` repeated once per ticked box), held to the same rules as the JSON body.
 */
export function parseSubscriptionForm(body: string): Subscription {
  const form = new URLSearchParams(body);
  const parsed = newsletterSchema.safeParse({
    email: form.get("email") ?? undefined,
    topics: form.getAll("topics"),
    page: form.get("page") ?? undefined,
  });
  if (!parsed.success) throw validationFailed(fieldMessages(parsed.error));
  return parsed.data;
}

/** 4 KiB: a link token is a few hundred bytes. Also the cap on a one-click unsubscribe body. */
export const LINK_BODY_LIMIT = 4 * 1024;

/**
 * `{ "token": "…" }` from a confirmation page's script: 400 when not a JSON object; `undefined`
 * (refused as a bad link) when it has no token string.
 */
export function parseTokenRequest(body: string): string | undefined {
  return linkTokenSchema.safeParse(parseJsonObject(body, '{"token": "…"}')).data?.token;
}

/** The confirmation page's form posted without JavaScript: its hidden `token` field. */
export function parseTokenForm(body: string): string | undefined {
  return linkTokenSchema.safeParse({ token: new URLSearchParams(body).get("token") ?? undefined }).data
    ?.token;
}
