import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Northwind Studio — software for ambitious teams", template: "%s · Northwind Studio" },
  description:
    "We design and build web applications, AI systems and SaaS platforms. Tell us about your project.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1, themeColor: "#4338ca" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="bg-white font-sans text-ink antialiased">{children}</body>
    </html>
  );
}
