import type { Metadata } from "next";
import { newsletterErrorMessage } from "@/components/form-messages";
import { NoScriptHumanCheckNote } from "@/components/no-script-human-check-note";
import { NewsletterForm } from "studio-intake/react";

export const metadata: Metadata = { title: "Newsletter", robots: { index: false } };

type Query = Record<string, string | string[] | undefined>;

/** Where the footer form lands when it was posted without JavaScript. */
export default async function NewsletterPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const result =
    query.status === "subscribed" ||
    query.status === "already-subscribed" ||
    query.status === "confirmation-sent"
      ? query.status
      : undefined;
  const code = typeof query.error === "string" && /^[a-z_]{1,40}$/.test(query.error) ? query.error : null;
  const invalid = typeof query.invalid === "string" ? query.invalid.split(",") : [];
  const retry = Number(query.retry);

  return (
    <section className="mx-auto max-w-xl px-5 py-24 sm:px-8">
      {code === "challenge_failed" ? <NoScriptHumanCheckNote /> : null}
      <NewsletterForm
        headingLevel="h1"
        title="Subscribe to our newsletter"
        page="/newsletter"
        initialResult={result}
        initialMessage={
          code ? newsletterErrorMessage(code, Number.isInteger(retry) && retry > 0 ? retry : null) : undefined
        }
        initialErrors={{
          ...(invalid.includes("email")
            ? { email: "Enter a valid email address, like name@example.com." }
            : {}),
          ...(invalid.includes("topics") ? { topics: "Choose topics from the list." } : {}),
        }}
      />
    </section>
  );
}
