import { Button } from "@react-email/button";
import { Heading } from "@react-email/heading";
import { Link } from "@react-email/link";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { styles, VisitorEmailLayout } from "../layout";
export { newsletterConfirmationSubject } from "../subjects";

export interface NewsletterConfirmationProps {
  /** What the site calls itself (`SITE_NAME`). */
  siteName: string;
  /** The address as the visitor typed it: shown as text, never trusted as markup. */
  email: string;
  topics: readonly string[];
  /** `SITE_URL/newsletter/confirm?token=…` */
  confirmUrl: string;
  /** `SITE_URL/newsletter/unsubscribe?token=…` */
  unsubscribeUrl: string;
  /** How long the link works, in words ("7 days"). */
  validFor: string;
}

/** The double opt-in email: one button to the confirmation page, which asks once more before anything changes. */
export function NewsletterConfirmationEmail({
  siteName,
  email,
  topics,
  confirmUrl,
  unsubscribeUrl,
  validFor,
}: NewsletterConfirmationProps) {
  return (
    <VisitorEmailLayout
      siteName={siteName}
      preview="One click to confirm your subscription."
      unsubscribeUrl={unsubscribeUrl}
      reason={`You get this email because someone, hopefully you, asked to subscribe ${email} to the ${siteName} newsletter. If it was not you, ignore it: nothing is sent until the address is confirmed.`}
    >
      <Heading as="h1" style={styles.heading}>
        Confirm your subscription
      </Heading>
      <Text style={styles.text}>
        Please confirm that {email} should get our newsletter
        {topics.length > 0 ? `, on ${topics.join(", ")}` : ""}: one email a month on what we are building and
        learning.
      </Text>
      <Section style={{ margin: "8px 0 24px" }}>
        <Button href={confirmUrl} style={styles.button}>
          Confirm my subscription
        </Button>
      </Section>
      <Text style={styles.muted}>
        Or open this link:{" "}
        <Link href={confirmUrl} style={styles.link}>
          {confirmUrl}
        </Link>
      </Text>
      <Text style={styles.muted}>The link works for {validFor}.</Text>
    </VisitorEmailLayout>
  );
}
