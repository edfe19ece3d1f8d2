import { z } from "zod";
import { attributionField } from "./attribution";
import { email } from "./text";

/**
 * The newsletter subscription: the topics a visitor may follow and the request's rules. Shared by
 * the footer form (in the browser) and the newsletter route, so it imports nothing server-only.
 */

/** SPEC.md's list, in the order the form shows it. Matched exactly: "ai" is not "AI". */
export const NEWSLETTER_TOPICS = [
  "AI",
  "Engineering",
  "Research",
  "Software",
  "Infrastructure",
  "Emerging technology",
  "Quantum",
  "Gaming technology",
] as const;

export type Topic = (typeof NEWSLETTER_TOPICS)[number];

const TOPIC_LIST = NEWSLETTER_TOPICS.join(", ");

const topic = z.enum(NEWSLETTER_TOPICS, {
  error: (issue) =>
    typeof issue.input === "string"
      ? `"${issue.input.slice(0, 40)}" is not a topic. Choose from: ${TOPIC_LIST}.`
      : `Each topic must be one of: ${TOPIC_LIST}.`,
});

export const newsletterSchema = z.object({
  email,
  topics: z
    .array(topic, { error: "Topics must be a list of topic names." })
    .refine((topics) => new Set(topics).size === topics.length, { error: "List each topic only once." })
    .meta({
      uniqueItems: true,
      description: "Optional: topics to follow, each listed once, matched exactly.",
    })
    .optional()
    .transform((topics): Topic[] => topics ?? []),
  /** Where the form was sent from (consent evidence); dropped, never refused, when it breaks its rule. */
  page: attributionField(500, "The path and query of the page the form was sent from."),
});

/** The request as a form builds it: `topics` may be left out. */
export type SubscriptionInput = z.input<typeof newsletterSchema>;
/** A valid request: `email` trimmed, `topics` distinct and present (empty when none were chosen). */
export type Subscription = z.output<typeof newsletterSchema>;

/**
 * What the confirmation page's button posts to `POST /api/newsletter/confirm` (as JSON, or its form
 * without JavaScript): the emailed link's token. A body without one is answered as a bad link.
 */
export const linkTokenSchema = z.object({
  token: z
    .string()
    .meta({ description: "The `token` of the link in the confirmation email, as it is there." }),
});
