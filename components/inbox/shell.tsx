import Link from "next/link";
import type { ReactNode } from "react";
import { KeyboardShortcuts } from "./keyboard";

export type InboxSection = "inbox" | "spam" | "subscribers" | "erase" | "audit";

const SECTIONS: { id: InboxSection; href: string; label: string }[] = [
  { id: "inbox", href: "/inbox", label: "Inbox" },
  { id: "spam", href: "/inbox/spam", label: "Spam" },
  { id: "subscribers", href: "/inbox/subscribers", label: "Subscribers" },
  { id: "erase", href: "/inbox/erase", label: "A person's data" },
  { id: "audit", href: "/inbox/audit", label: "Audit log" },
];

export const focusRing =
  "focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent";

const signOutButton = `rounded border border-slate-300 bg-white px-2.5 py-1 font-medium text-ink hover:bg-slate-50 ${focusRing}`;

function SectionLinks({ current, className }: { current: InboxSection | null; className: string }) {
  return (
    <ul className={className}>
      {SECTIONS.map((section) => (
        <li key={section.id}>
          <Link
            href={section.href}
            aria-current={section.id === current ? "page" : undefined}
            className={`block whitespace-nowrap rounded px-2.5 py-1.5 font-medium ${
              section.id === current ? "bg-slate-100 text-ink" : "text-muted hover:text-ink"
            } ${focusRing}`}
          >
            {section.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

function Account({ actor, className }: { actor: string; className: string }) {
  return (
    <div className={className}>
      <span className="min-w-0 text-muted">
        Signed in as <span className="break-all font-medium text-ink">{actor}</span>
      </span>
      <form action="/api/ops/sign-out" method="post">
        <button type="submit" className={signOutButton}>
          Sign out
        </button>
      </form>
      <form action="/api/ops/sign-out/everywhere" method="post">
        <button type="submit" className={signOutButton}>
          Sign out everywhere
        </button>
      </form>
    </div>
  );
}

/**
 * The frame of every signed-in inbox page: the sections, who is signed in, sign out (here, or in
 * every browser at once), and the shortcuts. One row at any width: below `lg` the sections and
 * the account fold into a "Menu" disclosure (a native `<details>`, so it opens without
 * JavaScript too); from `lg` on they sit in the row. Only one of the two is ever displayed, so
 * the other is out of the tab order and the accessibility tree.
 */
export function InboxShell({
  siteName,
  actor,
  current,
  skipTo = "main",
  children,
}: {
  /** What the site calls itself (`SITE_NAME`), before "Inbox" in the header. */
  siteName: string;
  actor: string;
  current: InboxSection | null;
  /** Where "Skip to content" takes the focus: the page's main content, or a part of it that comes first. */
  skipTo?: string;
  children: ReactNode;
}) {
  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <a
        href={`#${skipTo}`}
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <header className="relative border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl items-center gap-x-6 px-4 py-2.5">
          <Link href="/inbox" className={`shrink-0 text-base font-bold tracking-tight text-ink ${focusRing}`}>
            {siteName}
            <span className="text-accent"> Inbox</span>
          </Link>
          <nav aria-label="Inbox sections" className="hidden flex-1 lg:block">
            <SectionLinks current={current} className="flex gap-1 text-sm" />
          </nav>
          <Account actor={actor} className="hidden items-center gap-x-3 text-sm lg:flex" />
          <details className="group ml-auto lg:hidden">
            <summary
              className={`cursor-pointer list-none rounded border border-slate-300 px-2.5 py-1 text-sm font-medium text-ink [&::-webkit-details-marker]:hidden ${focusRing}`}
            >
              Menu <span aria-hidden="true">{"\u25BE"}</span>
            </summary>
            <div className="absolute inset-x-0 top-full z-40 border-b border-slate-200 bg-white px-4 pb-4 pt-2 shadow-md">
              <nav aria-label="Inbox sections">
                <SectionLinks current={current} className="flex flex-col gap-1 text-sm" />
              </nav>
              <Account
                actor={actor}
                className="mt-3 flex flex-wrap items-center gap-x-3 gap-y-2 border-t border-slate-200 pt-3 text-sm"
              />
            </div>
          </details>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 py-5 focus:outline-none">
        {children}
      </main>
      <KeyboardShortcuts />
    </div>
  );
}

/** A one-line message at the top of a page: what the last action did, or why it failed. */
export function Notice({ tone, children }: { tone: "success" | "danger"; children: ReactNode }) {
  const colors =
    tone === "success"
      ? "border-emerald-200 bg-emerald-50 text-success"
      : "border-red-200 bg-red-50 text-danger";
  return (
    <p role="status" className={`mb-4 rounded border px-3 py-2 text-sm font-medium ${colors}`}>
      {children}
    </p>
  );
}
