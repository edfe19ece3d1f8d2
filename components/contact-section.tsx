import { ContactForm } from "studio-intake/react";
import { contactErrorMessage } from "./form-messages";
import { NoScriptHumanCheckNote } from "./no-script-human-check-note";
import type { ContactFormReturn } from "@/lib/contact/redirect";

/**
 * The contact section (`#contact`): on the landing page, and on `/contact`, where a brief sent
 * without JavaScript comes back with what was wrong (`returned`).
 */
export function ContactSection({
  returned = null,
  headingLevel: Heading = "h2",
  page,
}: {
  returned?: ContactFormReturn | null;
  headingLevel?: "h1" | "h2";
  /** The path the section is rendered at, sent as `page` by a browser without JavaScript. */
  page: string;
}) {
  return (
    <section id="contact" aria-labelledby="contact-heading" className="mx-auto max-w-3xl px-5 py-20 sm:px-8">
      <Heading id="contact-heading" className="text-3xl font-bold tracking-tight text-ink">
        Tell us about your project
      </Heading>
      <p className="mt-3 text-muted">
        A few lines are enough to start. Attach a brief if you have one. Fields are required unless marked
        optional.
      </p>
      {returned?.code === "challenge_failed" ? <NoScriptHumanCheckNote /> : null}
      <div className="mt-10">
        <ContactForm
          initialErrors={returned?.errors}
          initialMessage={returned ? contactErrorMessage(returned.code, returned.retryAfter) : undefined}
          page={page}
        />
      </div>
    </section>
  );
}
