import type { NextConfig } from "next";
import { staticSecurityHeaders } from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // busboy and file-type stay plain Node modules: the contact route streams request bodies through them
  // (and through streamsearch, busboy's delimiter search, in lib/http/part-charsets.ts).
  serverExternalPackages: ["busboy", "streamsearch"],
  async headers() {
    // Every path: pages, API answers, static files and 404s.
    return [{ source: "/:path*", headers: staticSecurityHeaders(process.env.NODE_ENV === "development") }];
  },
};

export default nextConfig;
