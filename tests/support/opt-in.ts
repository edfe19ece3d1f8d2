import { createHash, createHmac } from "node:crypto";
import { nextAddress } from "./contact";
import type { ReceivedMail, SmtpTestServer } from "./smtp";

/**
 * Helpers for the newsletter's double opt-in as a visitor and a mail provider meet it: the links
 * are taken from the mail the SMTP server received, and tokens the tests forge are made here, from
 * the contract's definition, not by the app's own code.
 */

/** LINK_SIGNING_SECRET of the apps under test (at least 32 characters). */
export const LINK_SECRET = "integration-link-signing-secret-0123456789";

/** The subscriber id: sha256 (hex) of the lowercased address. */
export function subscriberIdOf(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
}

/** What a forged token claims besides its site. */
export interface LinkClaims {
  act: "confirm" | "unsubscribe" | "ops-sign-in";
  sub: string;
  exp?: number;
  jti?: string;
}

/**
 * `base64url(payload).base64url(HMAC-SHA256(key, payload))`, as the contract defines it: the
 * payload names `site` (the app's `SITE_URL` origin) and the purpose, and the key is derived from
 * the secret per purpose, `HMAC-SHA256(secret, "studio-intake/link-token/v2/" + purpose)`.
 */
export function signLink(site: string, claims: LinkClaims, secret = LINK_SECRET): string {
  const key = createHmac("sha256", secret).update(`studio-intake/link-token/v2/${claims.act}`).digest();
  return macked(JSON.stringify({ site, ...claims }), key);
}

/**
 * A link token of the form emails carried before the site and purpose were in it:
 * `{ act, sub, exp? }` signed with the secret itself (`act` one of `newsletter.confirm`,
 * `newsletter.unsubscribe`, `ops.sign-in`). Only an unsubscribe link of this form still works.
 */
export function signLegacyLink(
  payload: { act: string; sub: string; exp?: number; jti?: string },
  secret = LINK_SECRET,
): string {
  return macked(JSON.stringify(payload), secret);
}

function macked(json: string, key: Buffer | string): string {
  return `${Buffer.from(json).toString("base64url")}.${createHmac("sha256", key).update(json).digest("base64url")}`;
}

/** The messages the SMTP server accepted for `email`, by envelope. */
export function mailsTo(smtp: SmtpTestServer, email: string): ReceivedMail[] {
  return smtp.received.filter((mail) =>
    mail.envelope.to.some((to) => to.toLowerCase() === email.toLowerCase()),
  );
}

export function header(mail: ReceivedMail, name: string): string | undefined {
  return mail.parsed.headers.find((entry) => entry.key.toLowerCase() === name.toLowerCase())?.value;
}

export interface MailLinks {
  /** The confirmation page, from the text body. */
  confirm: string;
  /** The unsubscribe page, from the text body. */
  unsubscribePage: string;
  /** The one-click address, from `List-Unsubscribe`. */
  oneClick: string;
}

/** The links a confirmation email carries, as a person (and a mail provider) would find them. */
export function linksIn(mail: ReceivedMail): MailLinks {
  const text = mail.parsed.text ?? "";
  const find = (path: string) => {
    const match = new RegExp(
      `https?://[^\\s<>"]+${path.replaceAll("/", "\\/")}\\?token=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+`,
    ).exec(text);
    if (!match) throw new Error(`no ${path} link in the mail's text:\n${text}`);
    return match[0];
  };
  const listUnsubscribe = header(mail, "list-unsubscribe") ?? "";
  const oneClick = /^<([^>]+)>$/.exec(listUnsubscribe.trim())?.[1];
  if (!oneClick) throw new Error(`no List-Unsubscribe URL in ${JSON.stringify(listUnsubscribe)}`);
  return { confirm: find("/newsletter/confirm"), unsubscribePage: find("/newsletter/unsubscribe"), oneClick };
}

export function tokenOf(link: string): string {
  return new URL(link).searchParams.get("token") ?? "";
}

/** The confirmation page's button, as its script posts it, from a fresh client address. */
export async function postConfirm(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}/api/newsletter/confirm`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", "x-forwarded-for": nextAddress(), ...headers },
    redirect: "manual",
  });
}

/**
 * RFC 8058 one-click, as a mailbox provider's server sends it: a POST to the List-Unsubscribe
 * address, `List-Unsubscribe=One-Click` form-encoded, no Origin, no cookies, from its own address.
 */
export async function oneClickUnsubscribe(
  url: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    body: "List-Unsubscribe=One-Click",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "user-agent": "Mail-Provider-Unsubscribe/1.0",
      "x-forwarded-for": "192.0.2.250",
      ...headers,
    },
    redirect: "manual",
  });
}

/** Retries `check` until it passes or `ms` is over (for what happens after a response). Any test runner. */
export async function eventually(check: () => void | Promise<void>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Waits until `count` mails reached `email`, and answers them; throws when they do not within 10 s. */
export async function waitForMails(smtp: SmtpTestServer, email: string, count = 1): Promise<ReceivedMail[]> {
  await eventually(() => {
    const got = mailsTo(smtp, email).length;
    if (got !== count) throw new Error(`expected ${count} mail(s) to ${email}, got ${got}`);
  });
  return mailsTo(smtp, email);
}
