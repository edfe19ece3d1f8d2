import type { Metadata } from "next";
import type { ReactNode } from "react";

// Never indexed, and no inbox URL (a sign-in token, a search) is ever sent on as a Referer.
export const metadata: Metadata = {
  title: "Inbox",
  robots: { index: false, follow: false },
  referrer: "no-referrer",
};

export default function InboxLayout({ children }: { children: ReactNode }) {
  return children;
}
