"use client";

import type * as ContactFormModule from "./contact-form";
import { DeferredCode, DeferredForm } from "./deferred-form";
import type * as NewsletterFormModule from "./newsletter-form";

/**
 * The site's two forms as pages place them: rendered whole by the server, their code loaded by the
 * browser only when the visitor comes near them (see `DeferredForm`). The `require`s are for the
 * server alone: the build drops them from the browser's code, where `typeof window` is known.
 */

const contactForm = new DeferredCode<typeof ContactFormModule>(
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the server's synchronous copy
  typeof window === "undefined" ? (require("./contact-form") as typeof ContactFormModule) : null,
  () => import("./contact-form"),
);

const newsletterForm = new DeferredCode<typeof NewsletterFormModule>(
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the server's synchronous copy
  typeof window === "undefined" ? (require("./newsletter-form") as typeof NewsletterFormModule) : null,
  () => import("./newsletter-form"),
);

/** The contact form (`ContactForm`), its code loaded when the visitor comes near it. */
export function DeferredContactForm(props: ContactFormModule.ContactFormProps) {
  return <DeferredForm code={contactForm}>{({ ContactForm }) => <ContactForm {...props} />}</DeferredForm>;
}

/** The newsletter form (`NewsletterForm`), its code loaded when the visitor comes near it. */
export function DeferredNewsletterForm(props: NewsletterFormModule.NewsletterFormProps) {
  return (
    <DeferredForm code={newsletterForm}>{({ NewsletterForm }) => <NewsletterForm {...props} />}</DeferredForm>
  );
}
