import type { ConfigReader } from "./reader";
import type { Config } from "./types";
import { flag, parseMailbox } from "./values";

/** The shortest `LINK_SIGNING_SECRET` taken: a key an attacker could guess would forge every link. */
export const LINK_SIGNING_SECRET_MIN_LENGTH = 32;

/** Which of the features that email visitors are on (read before the channels, which check their needs). */
export interface VisitorEmailFlags {
  newsletterDoubleOptIn: boolean;
  contactAcknowledge: boolean;
  /** Each feature on, as its setting reads (`CONTACT_ACKNOWLEDGE=true`), for the messages. */
  features: readonly string[];
}

export function readVisitorEmailFlags({ raw, read }: ConfigReader): VisitorEmailFlags {
  const newsletterDoubleOptIn = read(raw.NEWSLETTER_DOUBLE_OPT_IN, flag("NEWSLETTER_DOUBLE_OPT_IN"), false);
  // Features that email visitors: each needs SMTP_URL and EMAIL_FROM (not EMAIL_TO).
  const contactAcknowledge = read(raw.CONTACT_ACKNOWLEDGE, flag("CONTACT_ACKNOWLEDGE"), false);
  const features = [
    ...(newsletterDoubleOptIn ? ["NEWSLETTER_DOUBLE_OPT_IN=true"] : []),
    ...(contactAcknowledge ? ["CONTACT_ACKNOWLEDGE=true"] : []),
  ];
  return { newsletterDoubleOptIn, contactAcknowledge, features };
}

/**
 * What emails to visitors need beyond SMTP: human verification for the acknowledgment, the
 * studio's reply-to address, and the key that signs the links they carry.
 */
export function parseVisitorEmails(
  { raw, problems, warnings }: ConfigReader,
  { newsletterDoubleOptIn, contactAcknowledge }: VisitorEmailFlags,
  { email, turnstile }: Pick<Config, "email" | "turnstile">,
): Pick<Config, "newsletterDoubleOptIn" | "replyTo" | "acknowledgment" | "linkSigningSecret"> {
  if (contactAcknowledge && !(raw.TURNSTILE_SECRET_KEY && raw.TURNSTILE_SITE_KEY)) {
    // Without a check that a person sent the form, anyone could aim the acknowledgment at any address.
    problems.push(
      "CONTACT_ACKNOWLEDGE=true emails whatever address the form names, so it needs human verification: TURNSTILE_SECRET_KEY and TURNSTILE_SITE_KEY must both be set",
    );
  }

  const replyTo = raw.EMAIL_REPLY_TO ? parseMailbox(raw.EMAIL_REPLY_TO) : null;
  if (raw.EMAIL_REPLY_TO && !replyTo) {
    problems.push(
      `EMAIL_REPLY_TO must be an address, optionally with a display name (Studio <hello@studio.example>), got "${raw.EMAIL_REPLY_TO}"`,
    );
  } else if (raw.EMAIL_REPLY_TO && !contactAcknowledge && !turnstile) {
    warnings.push(
      "EMAIL_REPLY_TO is set without CONTACT_ACKNOWLEDGE=true or human verification: nothing uses it",
    );
  }
  const firstTo = email?.to[0];
  const studioReplyTo = replyTo ?? (firstTo ? { name: "", address: firstTo } : null);
  const acknowledgment: Config["acknowledgment"] = contactAcknowledge ? { replyTo: studioReplyTo } : null;

  const linkSigningSecret = raw.LINK_SIGNING_SECRET ?? null;
  if (linkSigningSecret !== null && [...linkSigningSecret].length < LINK_SIGNING_SECRET_MIN_LENGTH) {
    problems.push(
      `LINK_SIGNING_SECRET must be at least ${LINK_SIGNING_SECRET_MIN_LENGTH} characters (e.g. openssl rand -base64 32)`,
    );
  }
  if (newsletterDoubleOptIn && linkSigningSecret === null) {
    problems.push(
      "NEWSLETTER_DOUBLE_OPT_IN=true signs the links it emails, so it needs LINK_SIGNING_SECRET (at least 32 characters, e.g. openssl rand -base64 32): not set",
    );
  }
  return { newsletterDoubleOptIn, replyTo: studioReplyTo, acknowledgment, linkSigningSecret };
}
