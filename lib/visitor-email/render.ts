import { render } from "@react-email/render";
import type { ReactElement } from "react";

export interface RenderedEmail {
  html: string;
  text: string;
}

/**
 * Both bodies from one React Email component: the HTML as React renders it (every string
 * escaped), and the plain text read from that same HTML, links written out in full.
 */
export async function renderEmail(email: ReactElement): Promise<RenderedEmail> {
  const [html, text] = await Promise.all([render(email), render(email, { plainText: true })]);
  return { html, text };
}
