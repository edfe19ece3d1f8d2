import { plainTextSelectors, render } from "@react-email/render";
import { compile } from "html-to-text";
import type { ReactElement } from "react";

export interface RenderedEmail {
  html: string;
  text: string;
}

/**
 * The plain text `render(email, { plainText: true })` makes, with its options, compiled once:
 * html-to-text's `convert` (which that option calls) compiles its selectors again on every call,
 * and that cost more than the conversion itself.
 */
const toPlainText = compile({ wordwrap: false, selectors: plainTextSelectors });

/**
 * Both bodies from one React Email component, rendered once: the HTML as React renders it (every
 * string escaped), and the plain text read from that same HTML, links written out in full.
 */
export async function renderEmail(email: ReactElement): Promise<RenderedEmail> {
  const html = await render(email);
  return { html, text: toPlainText(html) };
}
