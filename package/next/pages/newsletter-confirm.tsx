import type { Metadata } from "next";
import { NewsletterLinkAction } from "@/components/newsletter-link-action";
import { NewsletterLinkPage, Outcome, returnedError } from "@/components/newsletter-link-page";
import { CONFIRM_ACTION, LINK_MESSAGES } from "@/lib/newsletter/links";
import { previewNewsletterLink } from "@/lib/newsletter/preview";
import { getServices } from "@/lib/services";

// The token is in the URL: never send it on as a Referer.
export const metadata: Metadata = {
  title: "Confirm your subscription",
  robots: { index: false },
  referrer: "no-referrer",
};

type Query = Record<string, string | string[] | undefined>;

const RESULTS = {
  confirmed: "Thank you: you are subscribed. The next issue will be in your inbox.",
  "already-subscribed": "You were already subscribed: nothing has changed.",
};

/**
 * Where the confirmation email's link leads. Opening it changes nothing (mail scanners open
 * links); it names the address and topics, and only its button confirms.
 */
export default async function ConfirmPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  return <NewsletterLinkPage title="Confirm your subscription">{await content(query)}</NewsletterLinkPage>;
}

async function content(query: Query) {
  if (query.status === "confirmed" || query.status === "already-subscribed") {
    return <Outcome tone="success">{RESULTS[query.status]}</Outcome>;
  }
  const error = returnedError(query, LINK_MESSAGES);
  if (error) return <Outcome tone="danger">{error}</Outcome>;

  const token = typeof query.token === "string" ? query.token : "";
  const preview = await previewNewsletterLink(getServices(), token, CONFIRM_ACTION);
  if (preview.state !== "valid") return <Outcome tone="danger">{LINK_MESSAGES[preview.state]}</Outcome>;
  const { record } = preview;
  if (record === null || record?.status === "unsubscribed") {
    return <Outcome tone="danger">{LINK_MESSAGES.spent}</Outcome>;
  }
  if (record?.status === "confirmed") {
    return (
      <Outcome tone="success">
        <span className="break-words">{record.email}</span> is already subscribed: there is nothing to
        confirm.
      </Outcome>
    );
  }
  const button = (
    <NewsletterLinkAction
      action="/api/newsletter/confirm"
      token={token}
      label="Confirm subscription"
      busyLabel="Confirming…"
      results={RESULTS}
    />
  );
  if (record === undefined) {
    return (
      <>
        <p className="mt-4 text-lg text-ink">Confirm the subscription this link was sent for?</p>
        {button}
      </>
    );
  }
  return (
    <>
      <p className="mt-4 text-lg text-ink">
        Subscribe <strong className="break-words">{record.email}</strong> to our newsletter: one email a month
        on what we are building and learning.
      </p>
      <p className="mt-2 text-base text-muted">
        {record.topics.length > 0 ? `Topics: ${record.topics.join(", ")}.` : "All topics."}
      </p>
      {button}
    </>
  );
}
