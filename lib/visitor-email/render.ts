import { compile } from "html-to-text";
import type { ReactElement } from "react";

export interface RenderedEmail {
  html: string;
  text: string;
}

/** The doctype React Email's `render` puts first: the one mail clients expect of an email's HTML. */
const EMAIL_DOCTYPE =
  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">';

/**
 * The plain text React Email's `render(email, { plainText: true })` makes (its `plainTextSelectors`:
 * no images, nothing marked `data-skip-in-text`, a link's address written once), compiled once:
 * html-to-text's `convert`, which that option calls, compiles its selectors again on every call.
 */
const toPlainText = compile({
  wordwrap: false,
  selectors: [
    { selector: "img", format: "skip" },
    { selector: "[data-skip-in-text=true]", format: "skip" },
    { selector: "a", options: { linkBrackets: false, hideLinkHrefIfSameAsText: true } },
  ],
});

/**
 * Both bodies from one React Email component, rendered once: the HTML as React renders it (every
 * string escaped), and the plain text read from that same HTML, links written out in full.
 *
 * React's `renderToStaticMarkup` (React's own answer for an email's HTML) rather than React Email's
 * `render`: that one streams the tree through a web `ReadableStream` inside a Suspense boundary,
 * 1.42 ms of CPU an email against 0.19 ms (docs/performance.md), for the same markup plus React's
 * streaming markers (`<!--$-->`, `<!-- -->` between adjacent texts), which a mail client ignores.
 * The emails suspend on nothing.
 * `react-dom/server` is imported by the first email rendered, as React Email's `render` imports it:
 * Next refuses a static import of it in any module a Server Component can reach (this one is, by
 * the services), and emails are rendered only by route handlers and the ops tool.
 */
export async function renderEmail(email: ReactElement): Promise<RenderedEmail> {
  const { renderToStaticMarkup } = await import("react-dom/server");
  const html = EMAIL_DOCTYPE + renderToStaticMarkup(email);
  return { html, text: toPlainText(html) };
}
