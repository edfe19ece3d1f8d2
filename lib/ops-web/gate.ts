import { cookies } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { assertDeclaredSize, mediaType, parseJsonObject, readText } from "../http/body";
import { ApiError } from "../http/errors";
import { isCrossOrigin } from "../http/origin";
import type { Config } from "../config";
import { filterQuery, type NotifyingInbox, parseFilter, requireBrief, type StoredBrief } from "../ops";
import { opsDone, opsFailed } from "./respond";
import { liveSession, type OpsServices, SESSION_COOKIE } from "./sign-in";

/**
 * The inbox on the web's gate. Every page, action and route calls one of these itself (the proxy
 * is no check): off -> 404; no live session -> a redirect to sign in (pages) or 401 (the rest);
 * every state change under the contact form's origin rule.
 *
 * The app's services come from the caller (a page or route passes `getServices`), never from the
 * composition root itself: a getter, so that a configuration error is answered like any other.
 */

/** What the inbox on the web needs of the app's services; the app's own `Services` is one. */
export interface OpsWebServices extends NotifyingInbox {
  config: Config;
  /** The inbox on the web (`OPS_EMAILS`); `null` when it is off. */
  ops: OpsServices | null;
}

export interface OpsContext<S extends OpsWebServices = OpsWebServices> {
  services: S;
  ops: OpsServices;
  /** The signed-in address. */
  actor: string;
  /** The session's hash, to end it. */
  sessionHash: string;
}

/** 404 `not_found` when the inbox on the web is off; its services otherwise. */
export function opsServices<S extends OpsWebServices>(
  getServices: () => S,
): { services: S; ops: OpsServices } {
  const services = getServices();
  if (!services.ops) throw new ApiError("not_found");
  return { services, ops: services.ops };
}

/** 403 `cross_origin` for a state change from another origin (the contact form's rule). */
export function assertSameOrigin(request: Request, services: { config: Config }): void {
  if (isCrossOrigin(request.headers, services.config)) throw new ApiError("cross_origin");
}

async function session(services: OpsWebServices, ops: OpsServices) {
  const id = (await cookies()).get(SESSION_COOKIE)?.value;
  return liveSession(ops, services.config, id);
}

/**
 * For a route: 404 when off, 403 for a cross-origin state change (`mutation`), 401 without a
 * live session; else who is signed in.
 */
export async function requireRouteSession<S extends OpsWebServices>(
  request: Request,
  getServices: () => S,
  { mutation }: { mutation: boolean },
): Promise<OpsContext<S>> {
  const { services, ops } = opsServices(getServices);
  if (mutation) assertSameOrigin(request, services);
  const live = await session(services, ops);
  if (!live) throw new ApiError("unauthorized");
  return { services, ops, actor: live.email, sessionHash: live.idHash };
}

/** For a page: Next's 404 when off, a redirect to sign in (and back to `path`) without a session. */
export async function requirePageSession<S extends OpsWebServices>(
  path: string,
  getServices: () => S,
): Promise<OpsContext<S>> {
  const services = getServices();
  if (!services.ops) notFound();
  const live = await session(services, services.ops);
  if (!live) redirect(`/inbox/sign-in?next=${encodeURIComponent(path)}`);
  return { services, ops: services.ops, actor: live.email, sessionHash: live.idHash };
}

/** For the sign-in pages, which need no session: Next's 404 when off. */
export function requireOpsPage<S extends OpsWebServices>(
  getServices: () => S,
): { services: S; ops: OpsServices } {
  const services = getServices();
  if (!services.ops) notFound();
  return { services, ops: services.ops };
}

/** A page's own path with its query, for `next` and for links back to it. */
export function pathWithQuery(path: string, query: Record<string, string | string[] | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (typeof value === "string") params.set(key, value);
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** 64 KiB: a note of 5,000 characters, form-encoded, fits with room to spare. */
export const OPS_BODY_LIMIT = 64 * 1024;

const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";

/**
 * A state change's fields: a JSON object, or a form posted by the browser (form-encoded); an
 * empty body is no fields. Each field is its first value, as text. 400 for a body that is neither.
 */
export async function readOpsFields(request: Request): Promise<Record<string, string>> {
  assertDeclaredSize(request, OPS_BODY_LIMIT);
  const body = await readText(request, OPS_BODY_LIMIT);
  if (body.trim() === "") return {};
  const type = mediaType(request);
  if (type === FORM_MEDIA_TYPE) {
    const fields: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(body)) if (!(key in fields)) fields[key] = value;
    return fields;
  }
  if (type !== "application/json") {
    throw new ApiError("unsupported_media_type", "Send the request as application/json or a form post.");
  }
  const value = parseJsonObject(body, '{"field": "value"}');
  const fields: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) if (typeof item === "string") fields[key] = item;
  return fields;
}

/** What a brief's action answers: a status for the JSON body and the page's notice, and more JSON. */
export type BriefActionResult = { status: string } & Record<string, unknown>;

/**
 * The brief's page to go back to after a form post, with the list it was opened from: the page's
 * forms post to `<action>?list=<the list's query>`. Only the list's own filters and page are kept
 * from it, cleaned as the list cleans them.
 */
export function briefPageAfter(reference: string, request: Request): string {
  const page = `/inbox/${encodeURIComponent(reference)}`;
  const list = new URL(request.url).searchParams.get("list");
  if (!list) return page;
  const asked = new URLSearchParams(list);
  const kept = filterQuery(parseFilter(Object.fromEntries(asked)));
  const number = Number(asked.get("page"));
  if (Number.isInteger(number) && number > 1) kept.set("page", String(number));
  return kept.size > 0 ? `${page}?${kept.toString()}` : page;
}

/**
 * One POST on a brief (`/api/ops/briefs/<reference>/<action>`): the gate (404 off, 403 cross-origin,
 * 401 without a session), the brief (404 when there is none), then `act`; answered as JSON, or
 * with a 303 back to the brief's page (and the list it was opened from) for a form the browser
 * posted itself.
 */
export async function briefAction<S extends OpsWebServices>(
  request: Request,
  params: Promise<{ reference: string }>,
  getServices: () => S,
  act: (context: OpsContext<S>, brief: StoredBrief) => Promise<BriefActionResult>,
): Promise<Response> {
  const { reference } = await params;
  const back = briefPageAfter(reference, request);
  try {
    const context = await requireRouteSession(request, getServices, { mutation: true });
    const brief = await requireBrief(context.services, reference);
    return opsDone(request, await act(context, brief), back);
  } catch (error) {
    return opsFailed(request, error, back);
  }
}
