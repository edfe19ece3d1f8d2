import type { NextConfig } from "next";
import {
  ATTACHMENT_CONTENT_SECURITY_POLICY,
  contentSecurityPolicy,
  NOINDEX_HEADERS,
  STATIC_POLICY_SOURCE,
  staticSecurityHeaders,
} from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // busboy and file-type stay plain Node modules: the contact route streams request bodies through them
  // (and through streamsearch, busboy's delimiter search, in lib/http/part-charsets.ts).
  serverExternalPackages: ["busboy", "streamsearch"],
  // The stylesheet goes in the page itself: one request fewer before a phone can paint the landing page.
  experimental: { inlineCss: true },
  async headers() {
    // Every path: pages, API answers, static files and 404s (on the inbox's paths proxy.ts sends
    // the same values, which an adopting site's config would not).
    return [
      { source: "/:path*", headers: staticSecurityHeaders() },
      // The inbox's pages are rendered per request: proxy.ts sends theirs, with a nonce.
      {
        source: STATIC_POLICY_SOURCE,
        headers: [
          {
            key: "Content-Security-Policy",
            value: contentSecurityPolicy(process.env.NODE_ENV === "development"),
          },
        ],
      },
      { source: "/inbox/:path*", headers: NOINDEX_HEADERS },
      { source: "/api/ops/:path*", headers: NOINDEX_HEADERS },
      // An attachment download runs nothing at all: the last matching entry's value wins.
      {
        source: "/inbox/:reference/attachment",
        headers: [{ key: "Content-Security-Policy", value: ATTACHMENT_CONTENT_SECURITY_POLICY }],
      },
    ];
  },
};

export default nextConfig;
