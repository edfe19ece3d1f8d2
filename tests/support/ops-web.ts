import { createHash, randomBytes } from "node:crypto";
import { nextAddress } from "./contact";
import { LINK_SECRET, signLink, waitForMails } from "./opt-in";
import type { AppServer } from "./server";
import type { SmtpTestServer } from "./smtp";

/**
 * The inbox on the web as ops meet it: the sign-in link is taken from the email a real SMTP server
 * received, posted as the confirmation page's button posts it, and the session cookie is carried
 * by hand. Tokens the tests forge are made here, from the contract's definition.
 */

export const SESSION_COOKIE = "__Host-ops_session";

/** `sha256` of the lowercased address, as a sign-in link names it. */
export function addressIdOf(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
}

/** A sign-in token for `site` as the contract defines it, signed with the apps' secret (or another). */
export function forgeSignInToken(
  site: string,
  email: string,
  expiresInS: number,
  secret = LINK_SECRET,
): string {
  return signLink(
    site,
    {
      act: "ops-sign-in",
      sub: addressIdOf(email),
      exp: Math.floor(Date.now() / 1000) + expiresInS,
      jti: randomBytes(16).toString("hex"),
    },
    secret,
  );
}

/** A session id as the app draws them, and the hash the server keeps of it. */
export function newSessionId(): { id: string; hash: string; cookie: string } {
  const id = randomBytes(32).toString("base64url");
  return { id, hash: createHash("sha256").update(id).digest("hex"), cookie: `${SESSION_COOKIE}=${id}` };
}

/** A session record as the server keeps it, with times counted back from now. */
export function sessionRecord(
  email: string,
  ago: { createdS: number; lastSeenS?: number },
  now = Date.now(),
): Record<string, string> {
  const createdAt = now - ago.createdS * 1000;
  return {
    email,
    createdAt: new Date(createdAt).toISOString(),
    expiresAt: new Date(createdAt + 43_200_000).toISOString(),
    ...(ago.lastSeenS === undefined
      ? {}
      : { lastSeenAt: new Date(now - ago.lastSeenS * 1000).toISOString() }),
  };
}

/** Starts a session by spending a forged link: no email, so no address's budget of links. */
export async function signInQuietly(app: AppServer, email: string): Promise<string> {
  const session = await postSession(app, forgeSignInToken(app.url, email, 600));
  if (session.status !== 200) throw new Error(`session answered ${session.status}: ${await session.text()}`);
  return sessionCookieOf(session);
}

export async function requestLink(
  app: AppServer,
  email: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${app.url}/api/ops/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextAddress(), ...headers },
    body: JSON.stringify({ email }),
    redirect: "manual",
  });
}

/** The sign-in link in the newest email to `email`, from its text body. */
export async function signInLink(smtp: SmtpTestServer, email: string, count = 1): Promise<string> {
  const mails = await waitForMails(smtp, email, count);
  const text = mails.at(-1)?.parsed.text ?? "";
  const match =
    /https?:\/\/[^\s<>"]+\/inbox\/sign-in\/confirm\?token=[A-Za-z0-9_.%-]+(?:&next=[^\s<>"]+)?/.exec(text);
  if (!match) throw new Error(`no sign-in link in the mail's text:\n${text}`);
  return match[0];
}

export function tokenIn(link: string): string {
  return new URL(link).searchParams.get("token") ?? "";
}

export async function postSession(app: AppServer, token: string, headers: Record<string, string> = {}) {
  return fetch(`${app.url}/api/ops/session`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextAddress(), ...headers },
    body: JSON.stringify({ token }),
    redirect: "manual",
  });
}

/** `name=value` of the session cookie a response set. */
export function sessionCookieOf(response: Response): string {
  const setCookie = response.headers.get("set-cookie") ?? "";
  const match = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(setCookie);
  if (!match?.[1]) throw new Error(`no session cookie in ${JSON.stringify(setCookie)}`);
  return `${SESSION_COOKIE}=${match[1]}`;
}

/** Signs in as ops do: asks for a link, takes it from the email, confirms it; answers the cookie. */
export async function signIn(app: AppServer, smtp: SmtpTestServer, email: string): Promise<string> {
  const before = smtp.received.filter((mail) => mail.envelope.to.includes(email.toLowerCase())).length;
  const asked = await requestLink(app, email);
  if (asked.status !== 200) throw new Error(`sign-in answered ${asked.status}: ${await asked.text()}`);
  const link = await signInLink(smtp, email.toLowerCase(), before + 1);
  const session = await postSession(app, tokenIn(link));
  if (session.status !== 200) throw new Error(`session answered ${session.status}: ${await session.text()}`);
  return sessionCookieOf(session);
}

/** A request with the session cookie, from the site's own origin for a POST. */
export async function opsFetch(
  app: AppServer,
  path: string,
  cookie: string | null,
  init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const method = init.method ?? (init.json === undefined ? "GET" : "POST");
  return fetch(`${app.url}${path}`, {
    method,
    headers: {
      ...(cookie ? { cookie } : {}),
      ...(init.json === undefined ? {} : { "content-type": "application/json", origin: app.url }),
      ...init.headers,
    },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    redirect: "manual",
  });
}
