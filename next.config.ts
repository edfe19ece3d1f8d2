import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // busboy and file-type stay plain Node modules: the contact route streams request bodies through them
  // (and through streamsearch, busboy's delimiter search, in lib/http/part-charsets.ts).
  serverExternalPackages: ["busboy", "streamsearch"],
};

export default nextConfig;
