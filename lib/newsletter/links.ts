import { ApiError, validationFailed } from "../http/errors";
import { expiresIn, InvalidLinkError, type LinkPurpose, type LinkSigner } from "../links";
import { isSubscriberId } from "./subscribers";

/** The contract's lifetime of a confirmation link. Unsubscribe links never expire. */
export const CONFIRM_LINK_VALID_MS = 7 * 24 * 60 * 60 * 1000;

export const CONFIRM_ACTION = "confirm" satisfies LinkPurpose;
export const UNSUBSCRIBE_ACTION = "unsubscribe" satisfies LinkPurpose;

export type NewsletterLinkAction = typeof CONFIRM_ACTION | typeof UNSUBSCRIBE_ACTION;

/** Every link a newsletter email carries, absolute on `SITE_URL`. */
export interface NewsletterLinks {
  /** `/newsletter/confirm?token=…`: the page whose button confirms. */
  confirm: string;
  /** `/newsletter/unsubscribe?token=…`: the page whose button unsubscribes (the email's visible link). */
  unsubscribePage: string;
  /** `/api/newsletter/unsubscribe?token=…`: RFC 8058's one-click address, for `List-Unsubscribe`. */
  oneClickUnsubscribe: string;
}

export function newsletterLinks(
  signer: LinkSigner,
  siteOrigin: string,
  id: string,
  now: Date = new Date(),
): NewsletterLinks {
  const confirm = signer.sign({ act: CONFIRM_ACTION, sub: id, exp: expiresIn(CONFIRM_LINK_VALID_MS, now) });
  const unsubscribe = signer.sign({ act: UNSUBSCRIBE_ACTION, sub: id });
  const link = (path: string, token: string) => `${siteOrigin}${path}?token=${encodeURIComponent(token)}`;
  return {
    confirm: link("/newsletter/confirm", confirm),
    unsubscribePage: link("/newsletter/unsubscribe", unsubscribe),
    oneClickUnsubscribe: link("/api/newsletter/unsubscribe", unsubscribe),
  };
}

/** What a visitor is told about a link that does not work. */
export const LINK_MESSAGES = {
  invalid: "This link is not valid. Use the link in the most recent email we sent you.",
  expired: "This link has expired. Subscribe again to get a new one.",
  spent: "This subscription is no longer waiting for confirmation. Subscribe again to get a new link.",
} as const;

/**
 * The subscriber id a token names, for `action`; 422 `fields.token` for a token that is missing,
 * tampered with, for another action or another site, or expired (and when no `LINK_SIGNING_SECRET`
 * is set, since then no link can be checked). An unsubscribe link of the old form, which names no
 * site, is still taken: `LinkSigner` says so.
 */
export function subscriberOfToken(
  signer: LinkSigner | null,
  token: unknown,
  action: NewsletterLinkAction,
  now: Date = new Date(),
): string {
  if (typeof token !== "string" || token === "" || signer === null) {
    throw validationFailed({ token: LINK_MESSAGES.invalid });
  }
  try {
    const { sub } = signer.verify(token, action, now);
    if (!isSubscriberId(sub)) throw new InvalidLinkError("malformed");
    return sub;
  } catch (error) {
    if (!(error instanceof InvalidLinkError)) throw error;
    const message = error.reason === "expired" ? LINK_MESSAGES.expired : LINK_MESSAGES.invalid;
    throw new ApiError("validation_failed", undefined, { fields: { token: message }, cause: error });
  }
}
