import { describeWait } from "@/lib/format";
import { DEFAULT_MESSAGES } from "@/lib/http/error-codes";

/**
 * What the forms tell a visitor when the server says no, by the contract's error code. Shared by
 * the JavaScript forms and the pages a browser without JavaScript is redirected back to.
 */

/** The contract's `challenge_failed` sentence: the human check stopped the form. */
export const CHALLENGE_MESSAGE = DEFAULT_MESSAGES.challenge_failed;

/** Cloudflare's script could not load in this browser, so no token can be had. */
export const CHECK_UNAVAILABLE_MESSAGE =
  "The check that confirms you are human could not load, so this form cannot be sent.";

export function contactErrorMessage(code: string | null, retryAfterSeconds: number | null = null): string {
  switch (code) {
    case "validation_failed":
      return "Some fields need attention: see the messages next to them, then send again.";
    case "cross_origin":
      return "This form can only be sent from our own site. Reload this page and try again.";
    case "challenge_failed":
      return CHALLENGE_MESSAGE;
    case "payload_too_large":
      return "That is more than we can receive in one go. Attach a file of at most 10 MB.";
    case "rate_limited":
      return retryAfterSeconds
        ? `You have sent several briefs in a short time. Please try again in ${describeWait(retryAfterSeconds)}.`
        : "You have sent several briefs in a short time. Please try again later.";
    case "storage_unavailable":
      return "We could not save your brief just now. Nothing was sent; please try again in a moment.";
    case "unsupported_media_type":
    case "malformed_body":
      return "Your browser sent the form in a way we could not read. Reload the page and try again.";
    case "network":
      return "We could not reach the server. Check your connection and try again.";
    case "upload_failed":
      return "Your file could not be uploaded. Check your connection and send again.";
    case "upload_unavailable":
      return "This page is out of date. Reload it and send your brief again.";
    default:
      return "Something went wrong on our side. Please try again in a moment.";
  }
}

export function newsletterErrorMessage(code: string | null, retryAfterSeconds: number | null = null): string {
  switch (code) {
    case "validation_failed":
      return "Check the address and try again.";
    case "challenge_failed":
      return CHALLENGE_MESSAGE;
    case "rate_limited":
      return retryAfterSeconds
        ? `Too many attempts. Please try again in ${describeWait(retryAfterSeconds)}.`
        : "Too many attempts. Please try again later.";
    case "storage_unavailable":
      return "We could not save your subscription just now. Please try again in a moment.";
    case "email_unavailable":
      return "We could not send the confirmation email just now. Please try again in a moment.";
    case "network":
      return "We could not reach the server. Check your connection and try again.";
    default:
      return "Something went wrong on our side. Please try again in a moment.";
  }
}
