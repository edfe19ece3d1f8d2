import type { MetadataRoute } from "next";
import { getConfig } from "@/lib/config";

// Read at run time: SITE_URL can change with a restart, never needing a rebuild.
export const dynamic = "force-dynamic";

export default function robots(): MetadataRoute.Robots {
  const site = getConfig().siteOrigin;
  return {
    rules: {
      userAgent: "*",
      allow: "/",
      disallow: ["/api/", "/contact", "/thank-you", "/newsletter", "/inbox"],
    },
    sitemap: `${site}/sitemap.xml`,
    host: site,
  };
}
