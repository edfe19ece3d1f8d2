import Link from "next/link";
import type { ReactNode } from "react";
import { NewsletterForm } from "studio-intake/react";
import { VisitTracker } from "@/components/visit-tracker";

/**
 * The site's frame. Its links do not prefetch: each leads to the landing page, which on the landing
 * page itself is already here, and fetching it again would be work done while a phone is still
 * starting the page. A visitor elsewhere who follows one waits for one small request.
 */
export default function SiteLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      <VisitTracker />
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded-lg focus:bg-white focus:px-4 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <header className="border-b border-slate-200">
        <nav
          aria-label="Main"
          className="mx-auto flex max-w-6xl items-center justify-between gap-6 px-5 py-4 sm:px-8"
        >
          <Link prefetch={false} href="/" className="text-lg font-bold tracking-tight text-ink">
            Northwind<span className="text-accent"> Studio</span>
          </Link>
          <ul className="flex items-center gap-5 text-sm font-medium text-muted">
            <li className="hidden sm:block">
              <Link prefetch={false} href="/#services" className="hover:text-ink">
                Services
              </Link>
            </li>
            <li className="hidden sm:block">
              <Link prefetch={false} href="/#process" className="hover:text-ink">
                Process
              </Link>
            </li>
            <li>
              <Link
                prefetch={false}
                href="/#contact"
                className="rounded-lg bg-accent px-4 py-2 text-white hover:bg-accent-strong"
              >
                Start a project
              </Link>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main" className="flex-1">
        {children}
      </main>
      <footer className="border-t border-slate-200 bg-slate-50">
        <div className="mx-auto grid max-w-6xl gap-10 px-5 py-12 sm:px-8 md:grid-cols-2">
          <div>
            <p className="text-lg font-bold tracking-tight text-ink">
              Northwind<span className="text-accent"> Studio</span>
            </p>
            <p className="mt-2 max-w-sm text-sm text-muted">
              A small senior team designing and building software: web applications, AI systems and SaaS
              platforms.
            </p>
          </div>
          <NewsletterForm />
        </div>
        <p className="mx-auto max-w-6xl px-5 pb-8 text-xs text-muted sm:px-8">
          © {new Date().getFullYear()} Northwind Studio
        </p>
      </footer>
    </div>
  );
}
