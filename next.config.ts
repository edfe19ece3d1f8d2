import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // busboy and file-type stay plain Node modules: the contact route streams request bodies through them.
  serverExternalPackages: ["busboy"],
};

export default nextConfig;
