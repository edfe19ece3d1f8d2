import { z } from "zod";
import {
  CONTACT_BODY_LIMIT,
  CONTACT_FORM_LIMITS,
  HONEYPOT_FIELD,
  STAGED_UPLOAD_FIELD,
  UPLOAD_TOKEN_BODY_LIMIT,
} from "../contact";
import { RETRY_BODY_LIMIT, retryMessageSchema } from "../deliveries";
import { formatBytes } from "../format";
import {
  briefReceived,
  confirmationAnswer,
  formSettingsBody,
  deliveriesRunBody,
  gcBody,
  healthBody,
  retryAnswer,
  subscriptionAnswer,
  unsubscribeAnswer,
  uploadTokenIssued,
} from "../http/responses";
import { LINK_BODY_LIMIT, NEWSLETTER_BODY_LIMIT } from "../newsletter";
import { attributionFormSchema } from "../schemas/attribution";
import { briefSchema } from "../schemas/brief";
import { linkTokenSchema, newsletterSchema } from "../schemas/newsletter";
import { uploadTokenRequestSchema } from "../schemas/staged-upload";
import { TOKEN_FIELD } from "../verification";
import { OPS_OPERATIONS } from "./ops-operations";
import { named, type OperationSpec, type Tag } from "./types";

/**
 * Every API route, as the OpenAPI document describes it. To document a new route, append an entry
 * (and its tag, if new): the request and answer schemas are the route's own, and the error codes
 * are those it can answer with. The unit tests check that every `app/api/**∕route.ts` method has
 * an entry here and the other way round.
 */

export const TAGS: Tag[] = [
  { name: "Contact", description: "Project briefs sent from the contact form, with an optional file." },
  { name: "Newsletter", description: "Subscribing, confirming (double opt-in) and unsubscribing." },
  {
    name: "Ops",
    description:
      "The inbox on the web, for ops: signing in by an emailed link, and handling briefs. Off unless `OPS_EMAILS` is set.",
  },
  { name: "Jobs", description: "Scheduled maintenance, for a scheduler that can only call a URL." },
  { name: "Site", description: "What the prerendered pages and the operators ask the service at run time." },
];

const turnstileToken = (action: string) =>
  z
    .string()
    .optional()
    .meta({
      description: `With human verification on: the Turnstile widget's token for the action \`${action}\`. Missing or refused: 403 \`challenge_failed\`.`,
    });

const contactForm = named(
  "ContactForm",
  briefSchema.extend({
    brief: z.string().optional().meta({
      format: "binary",
      description:
        "Optional file, at most 10 MiB: PDF, DOCX, PNG, JPEG, or UTF-8 text (a name ending in `.md` is stored as Markdown). The type is read from the bytes, never from the name or the declared type. An empty part with an empty file name (a browser's file input left empty) means no file.",
    }),
    [STAGED_UPLOAD_FIELD]: z.string().optional().meta({
      description:
        "Vercel Blob inbox only, instead of `brief`: the path of the file uploaded ahead of the form through `POST /api/contact/upload`. Every `brief` rule applies. Empty counts as absent.",
    }),
    [TOKEN_FIELD]: turnstileToken("contact"),
    [HONEYPOT_FIELD]: z.string().optional().meta({
      description:
        "The honeypot, hidden from people: leave it empty. When it is filled the brief is filed as spam, no one is notified, and the answer looks the same.",
    }),
    // Where the lead came from: never a reason to refuse (a value that breaks its rule is dropped).
    ...attributionFormSchema.shape,
  }),
);

const subscription = named(
  "Subscription",
  newsletterSchema.extend({ [TOKEN_FIELD]: turnstileToken("newsletter") }),
);

const uploadTokenRequest = named(
  "UploadTokenRequest",
  uploadTokenRequestSchema.extend({ [TOKEN_FIELD]: turnstileToken("upload") }),
);

const linkToken = named("LinkToken", linkTokenSchema);

const oneClickUnsubscribe = named(
  "OneClickUnsubscribe",
  z.object({
    "List-Unsubscribe": z
      .literal("One-Click")
      .optional()
      .meta({ description: "What a mail provider posts (RFC 8058). Anything else in the body is ignored." }),
  }),
);

const linkTokenQuery = (what: string) => ({
  name: "token",
  in: "query" as const,
  required: true,
  description: `The token of ${what}, as it is there.`,
  schema: z.string(),
});

const noJavaScript =
  "A browser posting the form itself, without JavaScript (`Accept: text/html`), gets a `303` instead of JSON, for every outcome.";

export const OPERATIONS: OperationSpec[] = [
  {
    method: "post",
    path: "/api/contact",
    operationId: "sendBrief",
    tag: "Contact",
    summary: "Send a project brief",
    description: `A project brief as \`multipart/form-data\`, with an optional file, stored in the inbox; the notification channels are told after it is stored. Checks run in this order: origin, rate limit, declared size, media type, parse, validate, human verification, store, notify. Text fields are trimmed first and lengths count Unicode code points. A field sent twice, a file sent under a text field's name, or text that cannot be read is a 422 for that field. Unknown fields are ignored. ${noJavaScript}`,
    body: {
      required: true,
      limit: CONTACT_BODY_LIMIT,
      content: { "multipart/form-data": { schema: contactForm } },
    },
    ok: { description: "The brief is stored.", schema: named("BriefReceived", briefReceived) },
    redirect:
      "A browser's own form post: to `/thank-you?reference=…` when the brief is stored, else back to `/contact?error=<code>&invalid=<fields>&retry=<seconds>#contact` (never with what was typed).",
    rateLimit: "`CONTACT_RATE_LIMIT` per client address (default 5 per 10 minutes)",
    errors: [
      "malformed_body",
      "cross_origin",
      "challenge_failed",
      "payload_too_large",
      "unsupported_media_type",
      "validation_failed",
      "storage_unavailable",
      "internal_error",
    ],
    when: {
      malformed_body:
        "The form data cannot be read: no or an empty boundary, a truncated part, a broken part header, or a connection closed before the body ended.",
      unsupported_media_type: "The body is not `multipart/form-data`.",
      payload_too_large: `The body is over ${formatBytes(CONTACT_BODY_LIMIT)} (declared, or counted while reading), or has more than ${CONTACT_FORM_LIMITS.maxParts} parts.`,
    },
    fieldsExample: {
      email: "Enter a valid email address, like name@example.com.",
      description: "Description must be at least 30 characters.",
    },
  },
  {
    method: "post",
    path: "/api/contact/upload",
    operationId: "requestUploadToken",
    tag: "Contact",
    summary: "Get a token to upload a brief's file ahead of the form",
    description:
      "Vercel Blob inbox only. `@vercel/blob/client`'s token exchange (`handleUpload`): the browser asks for a client token, uploads the file straight to the store under `staging/`, then sends the contact form with `briefUpload` set to that path. A token allows one private upload of exactly that path, at most 10 MiB, declared as one of the types the form offers, never overwriting, within 10 minutes. The contact form's origin check applies.",
    body: {
      required: true,
      limit: UPLOAD_TOKEN_BODY_LIMIT,
      content: { "application/json": { schema: uploadTokenRequest } },
    },
    ok: {
      description: "The client token for the upload.",
      schema: named("UploadTokenIssued", uploadTokenIssued),
    },
    rateLimit: "`UPLOAD_RATE_LIMIT` per client address (default 10 per 10 minutes)",
    errors: [
      "malformed_body",
      "cross_origin",
      "challenge_failed",
      "upload_unavailable",
      "payload_too_large",
      "unsupported_media_type",
      "validation_failed",
      "internal_error",
    ],
    when: {
      malformed_body:
        "The body is not JSON, or not a token request (another event type, such as `blob.upload-completed`).",
      unsupported_media_type: "The body is not `application/json`.",
      validation_failed:
        "The path is not `staging/<32 hex digits>/<cleaned file name>`, or the upload is asked for in parts (`fields.pathname`).",
    },
    fieldsExample: {
      pathname: "Upload to staging/<32 hex digits>/<file name>, the file name cleaned as the form does.",
    },
  },
  {
    method: "post",
    path: "/api/newsletter",
    operationId: "subscribe",
    tag: "Newsletter",
    summary: "Subscribe an address to the newsletter",
    description: `Subscribes an address, idempotently, with optional topics; one subscriber per address whatever its case, and topics accumulate. With double opt-in, the address is stored pending and emailed a confirmation link (at most one email per address per 10 minutes). No origin check. ${noJavaScript} Only such a browser may send the footer form \`application/x-www-form-urlencoded\` (\`topics\` repeated once per topic).`,
    body: {
      required: true,
      limit: NEWSLETTER_BODY_LIMIT,
      content: {
        "application/json": { schema: subscription },
        "application/x-www-form-urlencoded": {
          schema: subscription,
          encoding: { topics: { style: "form", explode: true } },
        },
      },
    },
    ok: { description: "The subscription's state.", schema: named("SubscriptionAnswer", subscriptionAnswer) },
    redirect:
      "A browser's own form post: to `/newsletter?status=<status>`, or `/newsletter?error=<code>&invalid=<fields>&retry=<seconds>`.",
    rateLimit: "`NEWSLETTER_RATE_LIMIT` per client address (default 10 per 10 minutes)",
    errors: [
      "malformed_body",
      "challenge_failed",
      "payload_too_large",
      "unsupported_media_type",
      "validation_failed",
      "storage_unavailable",
      "email_unavailable",
      "internal_error",
    ],
    when: {
      malformed_body: "The body is not JSON, or is JSON but not an object, or is not UTF-8.",
      unsupported_media_type:
        "The body is not `application/json` (nor, for a browser's own form post, `application/x-www-form-urlencoded`).",
    },
    fieldsExample: { topics: '"ai" is not a topic. Choose from: AI, Engineering, Research, …' },
  },
  {
    method: "post",
    path: "/api/newsletter/confirm",
    operationId: "confirmSubscription",
    tag: "Newsletter",
    summary: "Confirm a subscription (double opt-in)",
    description: `The confirmation page's button, with the token from the emailed link. Only this POST confirms: opening the link (a GET, as a mail scanner does) changes nothing. No origin check: the signed token is the authority. ${noJavaScript}`,
    body: {
      required: true,
      limit: LINK_BODY_LIMIT,
      content: {
        "application/json": { schema: linkToken },
        "application/x-www-form-urlencoded": { schema: linkToken },
      },
    },
    ok: {
      description: "The subscription is confirmed.",
      schema: named("ConfirmationAnswer", confirmationAnswer),
    },
    redirect:
      "A browser's own form post: back to `/newsletter/confirm?status=<status>`, or `?error=<code>&link=invalid|expired|spent` (never the token).",
    rateLimit: "`NEWSLETTER_RATE_LIMIT`'s rule per client address, in a budget of its own",
    errors: [
      "malformed_body",
      "payload_too_large",
      "unsupported_media_type",
      "validation_failed",
      "storage_unavailable",
      "internal_error",
    ],
    when: {
      unsupported_media_type:
        "The body is not `application/json` (nor, for a browser's own form post, `application/x-www-form-urlencoded`).",
      validation_failed:
        "The token is missing, tampered with, for another action, signed with another secret or expired, or its subscriber is gone or no longer pending (`fields.token`). Nothing changes.",
    },
    fieldsExample: { token: "This link has expired. Subscribe again to get a new one." },
  },
  {
    method: "post",
    path: "/api/newsletter/unsubscribe",
    operationId: "unsubscribe",
    tag: "Newsletter",
    summary: "Unsubscribe in one click (RFC 8058)",
    description:
      "The address every email to a subscriber names in `List-Unsubscribe`, posted by mail providers (`List-Unsubscribe=One-Click`) or by the unsubscribe page's button. Idempotent: an address already unsubscribed, or unknown, gets the same answer. Unsubscribe tokens never expire. No origin check and no rate limit (the token is the authority), so no `RateLimit-*` headers. A body naming `List-Unsubscribe` is always answered with JSON, never a redirect.",
    parameters: [linkTokenQuery("the `List-Unsubscribe` address")],
    body: {
      required: false,
      description:
        "Empty, or `List-Unsubscribe=One-Click` form-encoded or as multipart. Anything else is ignored.",
      limit: LINK_BODY_LIMIT,
      content: {
        "application/x-www-form-urlencoded": { schema: oneClickUnsubscribe },
        "multipart/form-data": { schema: oneClickUnsubscribe },
      },
    },
    ok: {
      description: "The address is unsubscribed.",
      schema: named("UnsubscribeAnswer", unsubscribeAnswer),
    },
    redirect:
      "The unsubscribe page's form posted without JavaScript (`Accept: text/html`, a body not naming `List-Unsubscribe`): back to `/newsletter/unsubscribe?status=unsubscribed`, or `?error=<code>&link=invalid`.",
    errors: [
      "malformed_body",
      "payload_too_large",
      "validation_failed",
      "storage_unavailable",
      "internal_error",
    ],
    when: {
      malformed_body: "The body is not UTF-8, or the connection closed before it ended.",
      validation_failed:
        "The token is missing, tampered with, for another action or signed with another secret (`fields.token`).",
    },
    fieldsExample: { token: "This link is not valid. Use the link in the most recent email we sent you." },
  },
  {
    method: "get",
    path: "/api/newsletter/unsubscribe",
    operationId: "openUnsubscribeLink",
    tag: "Newsletter",
    summary: "Open the unsubscribe link in a browser",
    description:
      "A mail client without one-click support opens the `List-Unsubscribe` address in a browser: it is sent to the unsubscribe page, whose button asks first. A GET never changes anything.",
    parameters: [linkTokenQuery("the `List-Unsubscribe` address")],
    redirect: "Always: to `/newsletter/unsubscribe?token=…`, the page with the button.",
    errors: [],
  },
  {
    method: "get",
    path: "/api/form-settings",
    operationId: "getFormSettings",
    tag: "Site",
    summary: "The run-time settings the forms need",
    description:
      "What the prerendered forms need to know of the configuration, asked when a visitor starts on a form. Public values only. Changing a variable needs a restart, never a rebuild.",
    ok: { description: "The forms' settings.", schema: named("FormSettings", formSettingsBody) },
    errors: ["internal_error"],
  },
  {
    method: "get",
    path: "/api/health",
    operationId: "getHealth",
    tag: "Site",
    summary: "Which drivers are active, and deliveries not done",
    description:
      "The inbox, rate-limit and verification drivers and the notification channels configured: names only, never a secret. `deliveries` counts the channel attempts retrying on the schedule and those that gave up, from the store's due and failed records (listed, never read; the count is kept for 5 seconds), or `null` when the store could not be listed within 2 s.",
    ok: { description: "The active drivers.", schema: named("Health", healthBody) },
    errors: ["internal_error"],
  },
  {
    method: "get",
    path: "/api/cron/gc",
    operationId: "collectStagedUploads",
    tag: "Jobs",
    summary: "Remove uploads no brief claimed",
    description:
      "The inbox tool's `gc` for Vercel Cron: removes the files uploaded ahead of a form (and their claim markers) that no brief claimed within an hour, the inbox on the web's expired sessions and spent-link markers (kept in the store without Redis), the temporary files of uploads that a stopped server left unfinished (untouched for an hour), the briefs and spam entries received more than `RETENTION_DAYS` days ago (every file of each; unset: kept forever; a run that erased any writes one audit entry, `retention`), and the newsletter records still pending 7 days after their last request. Off until `CRON_SECRET` is set; then the request must carry `Authorization: Bearer <CRON_SECRET>`, which Vercel sends with each scheduled call. No rate limit: the secret is the authority.",
    ok: { description: "What was removed.", schema: named("GarbageCollected", gcBody) },
    errors: ["unauthorized", "not_found", "storage_unavailable", "internal_error"],
    when: {
      unauthorized: "No `Authorization: Bearer <CRON_SECRET>`, or another token. Nothing is removed.",
      not_found: "`CRON_SECRET` is not set: the job is off.",
    },
  },
  {
    method: "get",
    path: "/api/cron/deliveries",
    operationId: "makeDueDeliveries",
    tag: "Jobs",
    summary: "Make the delivery attempts that are due",
    description:
      "For Vercel Cron (or any scheduler that can only call a URL): makes every due retry of a notification channel (and of the acknowledgment) it can within 8 s, each claimed first so nothing is attempted twice, and answers what they came to. Off until `CRON_SECRET` is set; then the request must carry `Authorization: Bearer <CRON_SECRET>`. `vercel.json` calls it once a day (Vercel Hobby's limit); with QStash (`QSTASH_TOKEN`) retries are on time without it.",
    ok: { description: "What the due attempts came to.", schema: named("DeliveriesRun", deliveriesRunBody) },
    errors: ["unauthorized", "not_found", "storage_unavailable", "internal_error"],
    when: {
      unauthorized: "No `Authorization: Bearer <CRON_SECRET>`, or another token. No attempt is made.",
      not_found: "`CRON_SECRET` is not set: the job is off.",
    },
  },
  {
    method: "post",
    path: "/api/deliveries/retry",
    operationId: "retryDelivery",
    tag: "Jobs",
    summary: "Make a delivery retry QStash was given",
    description:
      "Upstash QStash calling back when a delivery retry published to it is due (see docs/operations.md, Deliveries). Off until `QSTASH_TOKEN`, `QSTASH_CURRENT_SIGNING_KEY` and `QSTASH_NEXT_SIGNING_KEY` are set; then only a message carrying a valid `Upstash-Signature` header (a JWT QStash signs with the current or the next signing key over this URL and the body's SHA-256) is read. The attempt the message names is made if its due record says it is due and nobody else has claimed it; any other message (the channel delivered, given up or rescheduled, the brief erased, the attempt under way elsewhere) is a no-op answered 200, so QStash does not send it again. No origin check and no rate limit: the signature is the authority.",
    body: {
      required: true,
      limit: RETRY_BODY_LIMIT,
      content: { "application/json": { schema: named("DeliveryRetry", retryMessageSchema) } },
    },
    ok: {
      description: "Done with: the attempt made, or a stale message.",
      schema: named("RetryDone", retryAnswer),
    },
    errors: [
      "malformed_body",
      "unauthorized",
      "not_found",
      "payload_too_large",
      "validation_failed",
      "storage_unavailable",
      "internal_error",
    ],
    when: {
      malformed_body:
        "A validly signed body that is not JSON. QStash retries it, then keeps it in its dead-letter queue.",
      unauthorized:
        "No `Upstash-Signature`, or one that is not valid for this URL and body. Nothing is attempted.",
      not_found: "QStash is not configured: the endpoint is off.",
      validation_failed:
        "A validly signed body that is not `{ reference, channel }`; `fields` says which is wrong.",
      storage_unavailable: "The store did not answer: QStash sends the message again later.",
    },
    fieldsExample: { reference: "A brief's reference, such as K7QM-3XD9-PTWA-84HC." },
  },
  ...OPS_OPERATIONS,
];
