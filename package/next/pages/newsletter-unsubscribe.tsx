import type { Metadata } from "next";
import { NewsletterLinkAction } from "@/components/newsletter-link-action";
import { NewsletterLinkPage, Outcome, returnedError } from "@/components/newsletter-link-page";
import { LINK_MESSAGES, UNSUBSCRIBE_ACTION } from "@/lib/newsletter/links";
import { previewNewsletterLink } from "@/lib/newsletter/preview";
import { getServices } from "@/lib/services";

// The token is in the URL: never send it on as a Referer.
export const metadata: Metadata = {
  title: "Unsubscribe",
  robots: { index: false },
  referrer: "no-referrer",
};

type Query = Record<string, string | string[] | undefined>;

const RESULTS = { unsubscribed: "You are unsubscribed. We will not send you the newsletter again." };

/**
 * Where the unsubscribe link of every email to a subscriber leads. Opening it changes nothing;
 * its button unsubscribes (mail providers' own buttons post the one-click address instead).
 */
export default async function UnsubscribePage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  return <NewsletterLinkPage title="Unsubscribe">{await content(query)}</NewsletterLinkPage>;
}

async function content(query: Query) {
  if (query.status === "unsubscribed") return <Outcome tone="success">{RESULTS.unsubscribed}</Outcome>;
  const error = returnedError(query, LINK_MESSAGES);
  if (error) return <Outcome tone="danger">{error}</Outcome>;

  const token = typeof query.token === "string" ? query.token : "";
  const preview = await previewNewsletterLink(getServices(), token, UNSUBSCRIBE_ACTION);
  if (preview.state !== "valid") return <Outcome tone="danger">{LINK_MESSAGES[preview.state]}</Outcome>;
  const { record } = preview;
  if (record === null || record?.status === "unsubscribed") {
    return (
      <Outcome tone="plain">
        This address is not subscribed to our newsletter: there is nothing to do.
      </Outcome>
    );
  }
  return (
    <>
      <p className="mt-4 text-lg text-ink">
        {record ? (
          <>
            Stop sending our newsletter to <strong className="break-words">{record.email}</strong>?
          </>
        ) : (
          "Stop sending our newsletter to the address this link was sent to?"
        )}
      </p>
      <NewsletterLinkAction
        action={`/api/newsletter/unsubscribe?token=${encodeURIComponent(token)}`}
        label="Unsubscribe"
        busyLabel="Unsubscribing…"
        results={RESULTS}
      />
    </>
  );
}
