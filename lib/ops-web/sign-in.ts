import { createHash, randomBytes } from "node:crypto";
import { afterResponse, type Deferral } from "../background";
import type { Config } from "../config";
import { ApiError, validationFailed } from "../http/errors";
import { expiresIn, InvalidLinkError, type LinkSigner } from "../links";
import { recordAudit } from "../ops/audit";
import type { RateLimiter } from "../ratelimit";
import { fieldMessages } from "../schemas/text";
import { email as emailRule } from "../schemas/text";
import { z } from "zod";
import { opsSignInSubject, renderOpsSignIn, type VisitorMailer } from "../visitor-email";
import { hashId, type OpsSession, SESSION_MAX_AGE_S, type SessionStore, type SpentLinks } from "./sessions";
import type { ObjectStore } from "../store";

/** What signing in to the inbox on the web needs, built once per process when `OPS_EMAILS` is set. */
export interface OpsServices {
  emails: readonly string[];
  links: LinkSigner;
  mailer: VisitorMailer;
  sessions: SessionStore;
  spentLinks: SpentLinks;
  limits: { address: RateLimiter; client: RateLimiter };
}

export const SIGN_IN_ACTION = "ops-sign-in";

const signInSchema = z.object({ email: emailRule });
/** The contract's lifetime of a sign-in link. */
export const SIGN_IN_LINK_VALID_MS = 15 * 60_000;
export { SESSION_MAX_AGE_S };
/** A session also ends after 2 hours without a request. */
export const SESSION_IDLE_S = 7_200;
/** How old a session's `lastSeenAt` may grow before a request writes it again: a write a minute at most. */
export const LAST_SEEN_EVERY_MS = 60_000;

/** The contract's cookie: `__Host-` pins it to this host, `Path=/`, and HTTPS. */
export const SESSION_COOKIE = "__Host-ops_session";

export const SIGN_IN_MESSAGES = {
  invalid: "This sign-in link is not valid. Ask for a new one.",
  expired: "This sign-in link has expired. Ask for a new one.",
  spent: "This sign-in link has been used already. Ask for a new one.",
} as const;

/** sha256 of the lowercased address: what a link names, never the address itself. */
export function addressId(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
}

/** The listed address `email` is (compared lowercased), or `null` when it is not listed. */
export function listedAddress(config: Config, email: string): string | null {
  const wanted = email.trim().toLowerCase();
  return config.ops?.emails.find((address) => address === wanted) ?? null;
}

/** A sign-in request's address, by the newsletter's rules: 422 `fields.email` when it is not one. */
export function parseSignInEmail(fields: Record<string, string>): string {
  const parsed = signInSchema.safeParse({ email: fields.email });
  if (!parsed.success) throw validationFailed(fieldMessages(parsed.error));
  return parsed.data.email;
}

/**
 * Asks for a sign-in link for `email`: the caller answers every address the same way, and this
 * does nothing at all before the answer, listed address or not, so neither its work nor its time
 * says which addresses are listed. `sendSignInLink` runs once the response has gone.
 */
export function requestSignInLink(
  ops: OpsServices,
  config: Config,
  email: string,
  next: string,
  defer: Deferral = afterResponse,
): void {
  defer(() => sendSignInLink(ops, config, email, next), "sending a sign-in link");
}

/**
 * Emails the sign-in link when `email` is listed and its own budget (5 per 15 minutes, whoever
 * asks) allows one; does nothing otherwise. The budget answers nobody: asking for someone else's
 * address can use up its links, never turn its owner's own request into a refusal. A limiter
 * that refuses or fails (Redis down) sends nothing.
 */
export async function sendSignInLink(
  ops: OpsServices,
  config: Config,
  email: string,
  next: string,
  now = new Date(),
): Promise<void> {
  const address = listedAddress(config, email);
  if (address === null) return;
  if (!(await ops.limits.address.consume(address)).allowed) {
    console.warn("[ops] a sign-in link was not sent: its address has had its links for now");
    return;
  }
  const token = ops.links.sign({
    act: SIGN_IN_ACTION,
    sub: addressId(address),
    exp: expiresIn(SIGN_IN_LINK_VALID_MS, now),
    jti: randomBytes(16).toString("hex"),
  });
  const back = safeNext(next);
  const signInUrl =
    `${config.siteOrigin}/inbox/sign-in/confirm?token=${encodeURIComponent(token)}` +
    (back === "/inbox" ? "" : `&next=${encodeURIComponent(back)}`);
  const { siteName } = ops.mailer;
  const body = await renderOpsSignIn({ siteName, signInUrl, validFor: "15 minutes" });
  await ops.mailer.send({ to: address, subject: opsSignInSubject(siteName), ...body });
}

/**
 * Spends a sign-in link and starts a session: the session's id (for the cookie only; the server
 * keeps its hash) and the address. 422 `fields.token` for a link that is tampered with, expired,
 * spent already, or for an address no longer listed.
 */
export async function startSession(
  ops: OpsServices,
  config: Config,
  store: ObjectStore,
  token: unknown,
  now = new Date(),
): Promise<{ id: string; email: string }> {
  const refuse = (message: string, cause?: unknown) =>
    new ApiError("validation_failed", undefined, { fields: { token: message }, cause });
  if (typeof token !== "string" || token === "") throw validationFailed({ token: SIGN_IN_MESSAGES.invalid });
  let payload;
  try {
    payload = ops.links.verify(token, SIGN_IN_ACTION, now);
  } catch (error) {
    if (!(error instanceof InvalidLinkError)) throw error;
    throw refuse(error.reason === "expired" ? SIGN_IN_MESSAGES.expired : SIGN_IN_MESSAGES.invalid, error);
  }
  const email = config.ops?.emails.find((address) => addressId(address) === payload.sub);
  if (!email || !payload.jti || !/^[0-9a-f]{32}$/.test(payload.jti)) throw refuse(SIGN_IN_MESSAGES.invalid);
  const left = Math.max(1, (payload.exp ?? 0) - Math.floor(now.getTime() / 1000));
  // Kept a little past the link's expiry: after that the signature check refuses it anyway.
  if (!(await ops.spentLinks.spend(payload.jti, left + 60))) throw refuse(SIGN_IN_MESSAGES.spent);

  const id = randomBytes(32).toString("base64url");
  const session: OpsSession = {
    email,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SESSION_MAX_AGE_S * 1000).toISOString(),
    lastSeenAt: now.toISOString(),
  };
  await ops.sessions.save(hashId(id), session, secondsLeft(session, now));
  await recordAudit(store, { actor: email, action: "sign-in", target: null }, now);
  return { id, email };
}

/** Whether a session is still on at `now`: within its 12 hours, and used in the last 2. */
function isLive(session: OpsSession, now: Date): boolean {
  const at = now.getTime();
  return Date.parse(session.expiresAt) > at && at - Date.parse(session.lastSeenAt) <= SESSION_IDLE_S * 1000;
}

/** How long the store keeps a session from `now`: until its cap or its idle end, the sooner. */
function secondsLeft(session: OpsSession, now: Date): number {
  const idleEnd = Date.parse(session.lastSeenAt) + SESSION_IDLE_S * 1000;
  const end = Math.min(Date.parse(session.expiresAt), idleEnd);
  return Math.max(1, Math.ceil((end - now.getTime()) / 1000));
}

/**
 * The session a cookie's id names, if it is live: known to the server, within its 12 hours, used
 * in the last 2, and its address still in `OPS_EMAILS` (read at run time: removing an address
 * ends its sessions). Its use is written back at most once a minute, not on every request.
 */
export async function liveSession(
  ops: OpsServices,
  config: Config,
  id: string | undefined,
  now = new Date(),
): Promise<{ email: string; idHash: string } | null> {
  if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
  const idHash = hashId(id);
  const session = await ops.sessions.find(idHash);
  if (session === null) return null;
  if (!isLive(session, now) || listedAddress(config, session.email) === null) {
    await ops.sessions.end(idHash, session.email);
    return null;
  }
  if (now.getTime() - Date.parse(session.lastSeenAt) >= LAST_SEEN_EVERY_MS) {
    const seen = { ...session, lastSeenAt: now.toISOString() };
    // Ended between the read and this write (signed out elsewhere): no session.
    if (!(await ops.sessions.touch(idHash, seen, secondsLeft(seen, now)))) return null;
  }
  return { email: session.email, idHash };
}

/**
 * Ends every session of `email`, `current` (the one asking) among them, and answers how many
 * were still live.
 */
export async function endEverySession(
  ops: OpsServices,
  email: string,
  current: string,
  now = new Date(),
): Promise<number> {
  const hashes = new Set([current, ...(await ops.sessions.sessionsOf(email))]);
  let live = 0;
  for (const idHash of hashes) {
    const session = await ops.sessions.find(idHash);
    if (session !== null && session.email === email && isLive(session, now)) live += 1;
    await ops.sessions.end(idHash, email);
  }
  return live;
}

/** `Set-Cookie` for a new session, and for ending one. */
export function sessionCookie(id: string | null): string {
  const value = id ?? "";
  const maxAge = id === null ? 0 : SESSION_MAX_AGE_S;
  return `${SESSION_COOKIE}=${value}; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=${maxAge}`;
}

/** Where to go after signing in: a path under `/inbox`, never anywhere else. */
export function safeNext(next: unknown): string {
  if (
    typeof next !== "string" ||
    !next.startsWith("/inbox") ||
    next.startsWith("//") ||
    next.includes("\\")
  ) {
    return "/inbox";
  }
  try {
    const url = new URL(next, "http://inbox.invalid");
    if (url.origin !== "http://inbox.invalid") return "/inbox";
    if (url.pathname !== "/inbox" && !url.pathname.startsWith("/inbox/")) return "/inbox";
    if (url.pathname.startsWith("/inbox/sign-in")) return "/inbox";
    return `${url.pathname}${url.search}`;
  } catch {
    return "/inbox";
  }
}
