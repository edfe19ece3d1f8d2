import type { Metadata } from "next";
import { ContactSection } from "@/components/contact-section";
import { readContactFormReturn } from "@/lib/contact/redirect";

export const metadata: Metadata = { title: "Send us a brief", robots: { index: false } };

/**
 * Where the contact form comes back to when it was sent without JavaScript and refused: the form
 * again, with the error and the invalid fields named in the URL (never what was typed). A page of
 * its own, so that the landing page stays prerendered.
 */
export default async function ContactPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  return (
    <ContactSection headingLevel="h1" page="/contact" returned={readContactFormReturn(await searchParams)} />
  );
}
