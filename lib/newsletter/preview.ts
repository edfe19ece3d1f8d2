import { ApiError } from "../http/errors";
import type { ObjectStore } from "../store";
import type { LinkSigner } from "../links";
import { LINK_MESSAGES, type NewsletterLinkAction, subscriberOfToken } from "./links";
import { readSubscriber, type SubscriberRecord } from "./subscribers";

/** How long a page waits for the record it names before it shows the button without it. */
const PREVIEW_READ_MS = 3_000;

/** What the confirm or unsubscribe page shows before its button is pressed. */
export type LinkPreview =
  | { state: "invalid" | "expired" }
  /** `record`: the subscriber as stored (`null`: there is none); `undefined` when it could not be read. */
  | { state: "valid"; record: SubscriberRecord | null | undefined };

/**
 * Checks a link's token and reads the subscriber it names, changing nothing: a mail scanner that
 * opens the link only ever gets here. A store that cannot be read in time leaves the record out;
 * the page still offers its button.
 */
export async function previewNewsletterLink(
  services: { links: LinkSigner | null; store: ObjectStore },
  token: unknown,
  action: NewsletterLinkAction,
  now: Date = new Date(),
): Promise<LinkPreview> {
  let id: string;
  try {
    id = subscriberOfToken(services.links, token, action, now);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { state: error.fields?.token === LINK_MESSAGES.expired ? "expired" : "invalid" };
  }
  try {
    return { state: "valid", record: await readSubscriber(services.store, id, PREVIEW_READ_MS) };
  } catch (error) {
    console.warn("[newsletter] a link page could not read its subscriber", error);
    return { state: "valid", record: undefined };
  }
}
