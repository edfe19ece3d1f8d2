import { z } from "zod";
import { CHANNEL_NAMES } from "../notify/types";
import { BRIEF_STATUSES, NOTE_MAX_LENGTH } from "../ops/state";
import { OPS_BODY_LIMIT } from "../ops-web/gate";
import { email } from "../schemas/text";
import { TOKEN_FIELD } from "../verification";
import { type BodyContent, type MediaType, named, type NamedSchema, type OperationSpec } from "./types";

/**
 * The inbox on the web's routes (`/api/ops/*`), off unless `OPS_EMAILS` is set. Each also answers
 * a GET, with 405 (or 404 while the feature is off) only, and any other path under `/api/ops`
 * answers 404 or 401: neither is an operation, so neither is listed.
 */

const OFF = "While `OPS_EMAILS` is not set, every `/api/ops` path answers 404 `not_found`.";
const SESSION = `Needs the session cookie \`__Host-ops_session\` (401 \`unauthorized\` without a live one; nothing of a brief is ever in that answer) and, as a state change, the contact form's origin rule (403 \`cross_origin\`). ${OFF}`;
const FORM = "A browser's own form post (asking for `text/html`) is answered with a 303 instead of JSON.";

const answer = <T extends string>(status: T, extra: z.ZodRawShape = {}) =>
  z.object({ ok: z.literal(true), status: z.literal(status), ...extra });

/** One schema for both ways of signing out: the answers are the same. */
const signedOut = named("OpsSignedOut", answer("signed-out"));

const delivery = z
  .record(z.string(), z.object({ ok: z.boolean(), at: z.string(), error: z.string().optional() }).loose())
  .meta({ description: "`delivery.json` as it now stands: one entry per channel." });

/** A body sent as JSON or as a browser's form post, capped at the inbox's 64 KiB. */
function fields(schema: NamedSchema, required = true): OperationSpec["body"] {
  const content: Partial<Record<MediaType, BodyContent>> = {
    "application/json": { schema },
    "application/x-www-form-urlencoded": { schema },
  };
  return { required, limit: OPS_BODY_LIMIT, content };
}

const reference = {
  name: "reference",
  in: "path" as const,
  required: true,
  description: "The brief's reference, in any case, with or without dashes.",
  schema: z.string(),
};

const BRIEF_ERRORS = [
  "unauthorized",
  "cross_origin",
  "not_found",
  "malformed_body",
  "payload_too_large",
  "unsupported_media_type",
  "storage_unavailable",
  "internal_error",
] as const;

const briefNotFound = "No brief has this reference (or the feature is off).";

export const OPS_OPERATIONS: OperationSpec[] = [
  {
    method: "post",
    path: "/api/ops/sign-in",
    operationId: "opsRequestSignInLink",
    tag: "Ops",
    summary: "Ask for a sign-in link",
    description: `Every valid address gets the same answer, listed in \`OPS_EMAILS\` or not, after the same work: everything of the link happens after the answer. Only a listed address is emailed a link to \`/inbox/sign-in/confirm?token=…\`, valid 15 minutes and usable once, at most 5 per 15 minutes whoever asks (past that nothing is sent and the answer is unchanged, never a 429). The contact form's origin rule applies, and Turnstile when it is on (action \`ops-sign-in\`), before any budget is charged. ${FORM} ${OFF}`,
    body: fields(
      named(
        "OpsSignInRequest",
        z.object({
          email,
          next: z
            .string()
            .optional()
            .meta({ description: "Where to go after signing in: a path under `/inbox`." }),
          [TOKEN_FIELD]: z
            .string()
            .optional()
            .meta({ description: "With human verification on: the Turnstile token." }),
        }),
      ),
    ),
    ok: {
      description: "A link is on its way, if the address may sign in.",
      schema: named("OpsLinkSent", answer("link-sent")),
    },
    redirect: "A browser's own form post: back to `/inbox/sign-in?done=link-sent` (or `?error=<code>`).",
    rateLimit: "5 requests per 15 minutes per client address",
    errors: [
      "cross_origin",
      "challenge_failed",
      "not_found",
      "malformed_body",
      "payload_too_large",
      "unsupported_media_type",
      "validation_failed",
      "storage_unavailable",
      "internal_error",
    ],
    fieldsExample: { email: "Enter a valid email address, like name@example.com." },
  },
  {
    method: "post",
    path: "/api/ops/session",
    operationId: "opsStartSession",
    tag: "Ops",
    summary: "Spend a sign-in link and start a session",
    description: `The confirmation page's button. Spends the link's token (once, atomically) and sets the session cookie \`__Host-ops_session\` (\`HttpOnly; Secure; SameSite=Lax; Path=/\`, at most 12 hours). Opening the link itself (a GET, as a mail scanner does) changes nothing. ${FORM} ${OFF}`,
    body: fields(
      named(
        "OpsSessionRequest",
        z.object({
          token: z.string().meta({ description: "The token from the emailed link." }),
          next: z
            .string()
            .optional()
            .meta({ description: "A path under `/inbox`; anything else goes to `/inbox`." }),
        }),
      ),
    ),
    ok: { description: "Signed in: the cookie is set.", schema: named("OpsSignedIn", answer("signed-in")) },
    redirect: "A browser's own form post: to `next` (a path under `/inbox`, else `/inbox`), with the cookie.",
    errors: [
      "cross_origin",
      "not_found",
      "malformed_body",
      "payload_too_large",
      "unsupported_media_type",
      "validation_failed",
      "storage_unavailable",
      "internal_error",
    ],
    when: {
      validation_failed:
        "The link is spent, expired, tampered with, or its address is no longer listed (`fields.token`).",
    },
    fieldsExample: { token: "This sign-in link has expired. Ask for a new one." },
  },
  {
    method: "post",
    path: "/api/ops/sign-out",
    operationId: "opsSignOut",
    tag: "Ops",
    summary: "End the session",
    description: `Ends the session on the server at once and clears the cookie; any body, or none. ${SESSION} ${FORM}`,
    ok: { description: "Signed out.", schema: signedOut },
    redirect: "A browser's own form post: to `/inbox/sign-in?done=signed-out`.",
    errors: ["unauthorized", "cross_origin", "not_found", "storage_unavailable", "internal_error"],
  },
  {
    method: "post",
    path: "/api/ops/sign-out/everywhere",
    operationId: "opsSignOutEverywhere",
    tag: "Ops",
    summary: "End every session of the signed-in address",
    description: `Ends at once every session of the signed-in address, in every browser, this one included, and clears the cookie; any body, or none. Audited as \`sign-out\` with the target \`everywhere (<n> sessions)\`. ${SESSION} ${FORM}`,
    ok: { description: "Signed out everywhere.", schema: signedOut },
    redirect: "A browser's own form post: to `/inbox/sign-in?done=signed-out`.",
    errors: ["unauthorized", "cross_origin", "not_found", "storage_unavailable", "internal_error"],
  },
  {
    method: "post",
    path: "/api/ops/briefs/{reference}/status",
    operationId: "opsSetStatus",
    tag: "Ops",
    summary: "Set a brief's status",
    description: `Writes the status into the brief's \`state.json\` with a conditional write (two people saving at once lose neither change), and records it in the audit log. ${SESSION} ${FORM}`,
    parameters: [reference],
    body: fields(named("OpsStatusRequest", z.object({ status: z.enum(BRIEF_STATUSES) }))),
    ok: {
      description: "Saved.",
      schema: named(
        "OpsStatusSaved",
        answer("saved", { state: z.object({ status: z.enum(BRIEF_STATUSES) }) }),
      ),
    },
    redirect: "A browser's own form post: back to `/inbox/<reference>?done=saved`.",
    errors: [...BRIEF_ERRORS, "validation_failed"],
    when: { not_found: briefNotFound },
    fieldsExample: { status: "Choose new, handled, archived." },
  },
  {
    method: "post",
    path: "/api/ops/briefs/{reference}/notes",
    operationId: "opsAddNote",
    tag: "Ops",
    summary: "Add a note to a brief",
    description: `Adds \`{ by, at, text }\` to the brief's \`state.json\` (\`by\` the signed-in address), with a conditional write. ${SESSION} ${FORM}`,
    parameters: [reference],
    body: fields(
      named(
        "OpsNoteRequest",
        z.object({ text: z.string().meta({ minLength: 1, maxLength: NOTE_MAX_LENGTH }) }),
      ),
    ),
    ok: {
      description: "Added.",
      schema: named(
        "OpsNoted",
        answer("noted", { notes: z.number().int().meta({ description: "How many notes it has now." }) }),
      ),
    },
    redirect: "A browser's own form post: back to `/inbox/<reference>?done=noted`.",
    errors: [...BRIEF_ERRORS, "validation_failed"],
    when: { not_found: briefNotFound },
    fieldsExample: { text: "Write a note first." },
  },
  {
    method: "post",
    path: "/api/ops/briefs/{reference}/not-spam",
    operationId: "opsNotSpam",
    tag: "Ops",
    summary: "Move a honeypot catch into the inbox",
    description: `Moves a brief from \`spam/\` into \`briefs/\` as \`new\` and notifies the channels as for a new brief (its \`delivery.json\` is written). ${SESSION} ${FORM}`,
    parameters: [reference],
    ok: { description: "Moved.", schema: named("OpsMoved", answer("moved", { delivery })) },
    redirect: "A browser's own form post: back to `/inbox/<reference>?done=moved`.",
    errors: BRIEF_ERRORS,
    when: { not_found: "No brief has this reference, or it is not in spam (or the feature is off)." },
  },
  {
    method: "post",
    path: "/api/ops/briefs/{reference}/redeliver",
    operationId: "opsRedeliver",
    tag: "Ops",
    summary: "Send a brief to its failed channels again",
    description: `The inbox tool's \`redeliver <reference>\`, the same code: the channels \`delivery.json\` records as failed are tried again, and the outcome is written back. With \`channel\`, that channel alone is sent, whether it failed (the inbox's "Retry now") or was delivered (its "Send again"). Audited as \`redeliver\`. ${SESSION} ${FORM}`,
    parameters: [reference],
    body: fields(
      named(
        "OpsRedeliverRequest",
        z.object({
          channel: z
            .enum(CHANNEL_NAMES)
            .optional()
            .meta({ description: "One channel to send, delivered or not; every failed channel without it." }),
        }),
      ),
    ),
    ok: {
      description: "What happened.",
      schema: named(
        "OpsRedelivered",
        z.object({
          ok: z.literal(true),
          status: z.enum(["redelivered", "still-failing", "not-sent"]).meta({
            description:
              "`not-sent`: nothing went out (the channel is not configured on this server, or an attempt at it is under way elsewhere; `error` says which).",
          }),
          delivery,
          error: z.string().optional(),
        }),
      ),
    },
    redirect: "A browser's own form post: back to `/inbox/<reference>?done=<status>`.",
    errors: [...BRIEF_ERRORS, "validation_failed"],
    when: { not_found: "No brief has this reference, or it is spam, which is never redelivered." },
    fieldsExample: { channel: "One of: webhook, email, slack." },
  },
  {
    method: "post",
    path: "/api/ops/erase",
    operationId: "opsErase",
    tag: "Ops",
    summary: "Erase an address's data",
    description: `The right to be forgotten: every file of the address's briefs and spam entries, and its subscriber record, are removed. The address is typed twice. The audit log keeps the address's SHA-256 and the counts, never the address. ${SESSION} ${FORM}`,
    body: fields(
      named(
        "OpsEraseRequest",
        z.object({ email, confirm: z.string().meta({ description: "The same address again." }) }),
      ),
    ),
    ok: {
      description: "Erased: how many of each were removed.",
      schema: named(
        "OpsErased",
        answer("erased", { briefs: z.number().int(), spam: z.number().int(), subscribers: z.number().int() }),
      ),
    },
    redirect: "A browser's own form post: to `/inbox/erase?briefs=<n>&spam=<n>&subscribers=<n>`.",
    errors: [
      "unauthorized",
      "cross_origin",
      "not_found",
      "malformed_body",
      "payload_too_large",
      "unsupported_media_type",
      "validation_failed",
      "storage_unavailable",
      "internal_error",
    ],
    fieldsExample: { confirm: "Type the same address again to confirm." },
  },
];
