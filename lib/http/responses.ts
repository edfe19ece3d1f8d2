import { z } from "zod";
import { CHANNEL_NAMES } from "../notify/types";
import { REFERENCE_PATTERN } from "../reference";
import { ERROR_STATUS, type ErrorCode } from "./error-codes";

/**
 * The JSON bodies the API answers with, as zod schemas. The routes build their answers to these
 * types (`satisfies`), and the OpenAPI document (`lib/openapi`) is generated from the same schemas,
 * so the two cannot drift apart unnoticed.
 */

const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** Every failure: `errorResponse` in `./errors`. */
export const errorBody = z.object({
  ok: z.literal(false),
  error: z.enum(ERROR_CODES).meta({ description: "What went wrong, as a code; it decides the status." }),
  message: z
    .string()
    .meta({ description: "One sentence for a person; never a stack trace or an internal detail." }),
  fields: z.record(z.string(), z.string()).optional().meta({
    description: "422 only: every invalid field at once, each with one sentence saying what is wrong.",
  }),
});

/** `POST /api/contact`: the brief is stored. */
export const briefReceived = z.object({
  ok: z.literal(true),
  reference: z
    .string()
    .regex(REFERENCE_PATTERN)
    .meta({
      description: "The brief's reference: 16 symbols in groups of four, easy to read aloud.",
      examples: ["K7QM-3XD9-PTWA-84HC"],
    }),
  stored: z.literal(true),
  forwarded: z.array(z.enum(CHANNEL_NAMES)).meta({
    description:
      "The notification channels that accepted the brief, in this order; empty when none is configured or none succeeded (the brief is stored all the same).",
  }),
});

/** `POST /api/contact/upload`: a client token for one upload to the Blob store's staging area. */
export const uploadTokenIssued = z.object({
  ok: z.literal(true),
  type: z.literal("blob.generate-client-token"),
  clientToken: z.string().meta({
    description:
      "For `@vercel/blob/client`: one private upload of exactly the path asked for, at most 10 MiB, within 10 minutes.",
  }),
});

/** `POST /api/newsletter`. */
export const subscriptionAnswer = z.object({
  ok: z.literal(true),
  status: z.enum(["subscribed", "already-subscribed", "confirmation-sent"]).meta({
    description:
      "`subscribed` the first time, `already-subscribed` after that; with double opt-in, `confirmation-sent` until the address is confirmed.",
  }),
});

/** `POST /api/newsletter/confirm`. */
export const confirmationAnswer = z.object({
  ok: z.literal(true),
  status: z.enum(["confirmed", "already-subscribed"]).meta({
    description: "`confirmed` the first time, `already-subscribed` when the address already was.",
  }),
});

/** `POST /api/newsletter/unsubscribe`: idempotent. */
export const unsubscribeAnswer = z.object({
  ok: z.literal(true),
  status: z.literal("unsubscribed"),
});

/** `GET /api/form-settings`: public values only. */
export const formSettingsBody = z.object({
  upload: z.enum(["form", "blob"]).meta({
    description:
      "`blob` with the Vercel Blob inbox: a chosen file goes to the store ahead of the form (`POST /api/contact/upload`). Else `form`.",
  }),
  turnstileSiteKey: z.string().nullable().meta({
    description: "Cloudflare Turnstile's public site key when human verification is on, else `null`.",
  }),
  studioEmail: z.string().optional().meta({
    description:
      "The studio's address (`EMAIL_REPLY_TO`, else the first `EMAIL_TO`), which the forms offer when Turnstile's script cannot load in the browser. Only with human verification on and an address set.",
  }),
});

/** `GET /api/health`: driver names, never a secret. */
export const healthBody = z.object({
  ok: z.literal(true),
  inbox: z.enum(["filesystem", "vercel-blob"]),
  ratelimit: z.enum(["memory", "upstash"]),
  verification: z.enum(["turnstile", "off"]),
  channels: z.array(z.enum(CHANNEL_NAMES)).meta({ description: "The notification channels configured." }),
  deliveries: z
    .object({
      retrying: z.number().int().min(0).meta({
        description: "Channel attempts waiting for their next try on the retry schedule (due records).",
      }),
      failed: z.number().int().min(0).meta({
        description:
          "Channels that gave up, until a later attempt delivers them or the brief is erased (failed records).",
      }),
    })
    .nullable()
    .meta({
      description:
        "Deliveries not done, counted from the store's due and failed records (one per brief and channel, the acknowledgment included); at most 5 seconds old. `null` when the store could not be listed within 2 s: the health answer never waits on, or fails with, the store.",
    }),
});

export const gcBody = z.object({
  ok: z.literal(true),
  removed: z.number().int().min(0).meta({
    description:
      "How many staged uploads, claim markers, expired sign-in records, unfinished uploads' temporary files, briefs and spam entries past `RETENTION_DAYS` and subscriptions left pending for 7 days were removed.",
  }),
});

export const deliveriesRunBody = z.object({
  ok: z.literal(true),
  attempted: z.number().int().min(0).meta({ description: "Due attempts made in this run." }),
  delivered: z.number().int().min(0).meta({ description: "Of those, the ones delivered." }),
  failed: z.number().int().min(0).meta({ description: "Of those, the ones that gave up (ops were told)." }),
  retrying: z
    .number()
    .int()
    .min(0)
    .meta({ description: "Of those, the ones that failed again and are due again later." }),
});

/** `POST /api/deliveries/retry`: QStash's call is done with; whether it made an attempt. */
export const retryAnswer = z.object({
  ok: z.literal(true),
  attempted: z.boolean().meta({
    description:
      "`true` when the message's attempt was made now; `false` when the message was stale (the channel delivered, given up or rescheduled, the brief erased, or the attempt under way elsewhere): a no-op.",
  }),
});

export type ErrorBody = z.input<typeof errorBody>;
export type BriefReceived = z.input<typeof briefReceived>;
export type UploadTokenIssued = z.input<typeof uploadTokenIssued>;
export type SubscriptionAnswer = z.input<typeof subscriptionAnswer>;
export type ConfirmationAnswer = z.input<typeof confirmationAnswer>;
export type UnsubscribeAnswer = z.input<typeof unsubscribeAnswer>;
export type FormSettingsBody = z.input<typeof formSettingsBody>;
export type HealthBody = z.input<typeof healthBody>;
export type GcBody = z.input<typeof gcBody>;
export type DeliveriesRunBody = z.input<typeof deliveriesRunBody>;
export type RetryAnswer = z.input<typeof retryAnswer>;
