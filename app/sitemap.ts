import type { MetadataRoute } from "next";
import { getConfig } from "@/lib/config";

// Read at run time: SITE_URL can change with a restart, never needing a rebuild.
export const dynamic = "force-dynamic";

/** The one page worth finding: the landing page. Outcome pages are not indexed. */
export default function sitemap(): MetadataRoute.Sitemap {
  return [{ url: `${getConfig().siteOrigin}/`, changeFrequency: "monthly", priority: 1 }];
}
