/**
 * `studio-intake/react`: the site's two forms as a page places them, rendered whole by the server
 * (they work without JavaScript) and their code loaded as the visitor comes near. Their styles are
 * `studio-intake/react/styles.css`, for a site that does not build them with Tailwind itself.
 */
export {
  DeferredContactForm as ContactForm,
  DeferredNewsletterForm as NewsletterForm,
} from "@/components/deferred-forms";
export type { ContactFormProps } from "@/components/contact-form";
export type { NewsletterFormProps } from "@/components/newsletter-form";
