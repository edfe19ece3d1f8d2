import Link from "next/link";
import type { ReactNode } from "react";
import { newsletterErrorMessage } from "./form-messages";

/** The frame of the pages an emailed newsletter link opens. */
export function NewsletterLinkPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="mx-auto max-w-xl px-5 py-24 sm:px-8">
      <h1 className="text-3xl font-bold tracking-tight text-ink">{title}</h1>
      {children}
      <Link href="/" className="mt-10 inline-block font-semibold text-accent hover:text-accent-strong">
        Back to the home page
      </Link>
    </section>
  );
}

export function Outcome({ tone, children }: { tone: "success" | "danger" | "plain"; children: ReactNode }) {
  const color = tone === "success" ? "text-success" : tone === "danger" ? "text-danger" : "text-ink";
  return (
    <p role="status" className={`mt-4 text-lg font-medium ${color}`} data-testid="link-status">
      {children}
    </p>
  );
}

type Query = Record<string, string | string[] | undefined>;

/**
 * The error a no-JavaScript post of the page's button came back with, as a sentence; `null` when
 * the page was not reached that way. `linkMessages` says why a link was refused.
 */
export function returnedError(query: Query, linkMessages: Record<string, string>): string | null {
  const code = typeof query.error === "string" && /^[a-z_]{1,40}$/.test(query.error) ? query.error : null;
  if (!code) return null;
  const link = typeof query.link === "string" ? linkMessages[query.link] : undefined;
  if (link) return link;
  const retry = Number(query.retry);
  return `${newsletterErrorMessage(code, Number.isInteger(retry) && retry > 0 ? retry : null)} Open the link in your email again to retry.`;
}
