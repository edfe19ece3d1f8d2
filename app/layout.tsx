import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { getConfig } from "@/lib/config";
import { ACCENT, SITE_DESCRIPTION, SITE_TITLE, STUDIO_NAME } from "@/lib/site/brand";
import "./globals.css";

/**
 * Absolute URLs (canonical, Open Graph) are made on `SITE_URL`. A prerendered page is rendered at
 * build, so for those pages `SITE_URL` must be set where the site is built too (on Vercel, a project
 * variable is); `robots.txt` and `sitemap.xml` read it at run time.
 */
export function generateMetadata(): Metadata {
  return {
    metadataBase: new URL(getConfig().siteOrigin),
    title: { default: SITE_TITLE, template: `%s · ${STUDIO_NAME}` },
    description: SITE_DESCRIPTION,
    alternates: { canonical: "./" },
    openGraph: {
      type: "website",
      siteName: STUDIO_NAME,
      title: SITE_TITLE,
      description: SITE_DESCRIPTION,
      url: "./",
      locale: "en_US",
    },
    twitter: { card: "summary_large_image", title: SITE_TITLE, description: SITE_DESCRIPTION },
  };
}

export const viewport: Viewport = { width: "device-width", initialScale: 1, themeColor: ACCENT };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="bg-white font-sans text-ink antialiased">{children}</body>
    </html>
  );
}
