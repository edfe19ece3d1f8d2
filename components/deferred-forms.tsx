"use client";

import type * as ContactFormModule from "./contact-form";
import { DeferredCode, DeferredForm } from "./deferred-form";
import type * as NewsletterFormModule from "./newsletter-form";

/**
 * The site's two forms as pages place them: rendered whole by the server, their code loaded by the
 * browser only when the visitor comes near them (see `DeferredForm`). The first `import()` of each is
 * for the server alone: the browser's build drops it, `typeof window` being known there. Both are
 * `import()`s, not a `require` for the server: the package's build (tsdown) makes a `require` of an
 * ES module a static import, which would put the form's code in an adopter's page after all.
 */

const contactForm = new DeferredCode<typeof ContactFormModule>(
  typeof window === "undefined" ? import("./contact-form") : null,
  () => import("./contact-form"),
);

const newsletterForm = new DeferredCode<typeof NewsletterFormModule>(
  typeof window === "undefined" ? import("./newsletter-form") : null,
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
