import { Body } from "@react-email/body";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Hr } from "@react-email/hr";
import { Html } from "@react-email/html";
import { Link } from "@react-email/link";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import type { ReactNode } from "react";

const font = "system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

export const styles = {
  body: { backgroundColor: "#f8fafc", fontFamily: font, margin: 0, padding: "24px 0" },
  container: {
    backgroundColor: "#ffffff",
    border: "1px solid #e2e8f0",
    borderRadius: "8px",
    maxWidth: "560px",
    padding: "32px",
  },
  brand: { color: "#0f172a", fontSize: "16px", fontWeight: 700, margin: "0 0 24px" },
  heading: { color: "#0f172a", fontSize: "22px", fontWeight: 700, lineHeight: "1.3", margin: "0 0 16px" },
  text: { color: "#0f172a", fontSize: "15px", lineHeight: "1.6", margin: "0 0 16px" },
  muted: { color: "#475569", fontSize: "13px", lineHeight: "1.6", margin: "0 0 8px" },
  button: {
    backgroundColor: "#4338ca",
    borderRadius: "8px",
    color: "#ffffff",
    fontSize: "15px",
    fontWeight: 600,
    padding: "12px 20px",
    textDecoration: "none",
  },
  link: { color: "#4338ca", textDecoration: "underline" },
} as const;

export interface LayoutProps {
  /** Who the email comes from, as the site names itself (`SITE_NAME`). */
  siteName: string;
  /** The line mail clients show beside the subject. */
  preview: string;
  children: ReactNode;
  /**
   * Set for every email to a subscriber: a visible link to the unsubscribe page (the headers carry
   * the one-click address; see `VisitorMailer`).
   */
  unsubscribeUrl?: string;
  /** Why the recipient gets this email, in one sentence. */
  reason: string;
}

/**
 * The line a mail client shows beside the subject: hidden text first in the body, written as React
 * Email's `Preview` writes it but without the ~800 invisible characters that component pads it
 * with so that the snippet stops there. Quoted-printable made those padding characters more than
 * half of every email (12.5 KB against 5.3 KB without) and most of nodemailer's work on it; the
 * snippet now goes on into the email's first lines, which say the same thing.
 */
function PreviewLine({ children }: { children: string }) {
  return (
    <div
      style={{
        display: "none",
        overflow: "hidden",
        lineHeight: "1px",
        opacity: 0,
        maxHeight: 0,
        maxWidth: 0,
      }}
      data-skip-in-text
    >
      {children}
    </div>
  );
}

/**
 * The frame of every email to a visitor: text only, no image (nothing remote to load), links
 * absolute on `SITE_URL`. React escapes every string it is given, so a visitor's own text can
 * only ever show as text.
 */
export function VisitorEmailLayout({ siteName, preview, children, unsubscribeUrl, reason }: LayoutProps) {
  return (
    <Html lang="en">
      <Head />
      <PreviewLine>{preview}</PreviewLine>
      <Body style={styles.body}>
        <Container style={styles.container}>
          <Text style={styles.brand}>{siteName}</Text>
          {children}
          <Hr style={{ borderColor: "#e2e8f0", margin: "24px 0 16px" }} />
          <Section>
            <Text style={styles.muted}>{reason}</Text>
            {unsubscribeUrl ? (
              <Text style={styles.muted}>
                {/* Nothing right after the link: in the plain text its URL ends the line, so no mail
                    client takes punctuation for part of it. */}
                Not for you? You can leave at any time:{" "}
                <Link href={unsubscribeUrl} style={styles.link}>
                  Unsubscribe
                </Link>
              </Text>
            ) : null}
          </Section>
        </Container>
      </Body>
    </Html>
  );
}
