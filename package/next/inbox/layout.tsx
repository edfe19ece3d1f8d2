import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./styles.css";

// Never indexed, and no inbox URL (a sign-in token, a search) is ever sent to another site as a
// Referer. Not `no-referrer`: with it, browsers send `Origin: null` on the pages' own form posts,
// which the origin rule refuses.
export const metadata: Metadata = {
  title: "Inbox",
  robots: { index: false, follow: false },
  referrer: "same-origin",
};

export default function InboxLayout({ children }: { children: ReactNode }) {
  return children;
}
