/** The studio's name and pitch, shared by the page metadata, the icons and the Open Graph image. */
export const STUDIO_NAME = "Northwind Studio";
export const SITE_TITLE = "Northwind Studio — software for ambitious teams";
export const SITE_DESCRIPTION =
  "We design and build web applications, AI systems and SaaS platforms. Tell us about your project.";
/** The accent colour of the site (Tailwind's `--color-accent`). */
export const ACCENT = "#4338ca";
