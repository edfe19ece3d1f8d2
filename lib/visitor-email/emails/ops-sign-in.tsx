import { Button } from "@react-email/button";
import { Heading } from "@react-email/heading";
import { Link } from "@react-email/link";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { styles, VisitorEmailLayout } from "../layout";
export { opsSignInSubject } from "../subjects";

export interface OpsSignInProps {
  /** What the site calls itself (`SITE_NAME`). */
  siteName: string;
  /** `SITE_URL/inbox/sign-in/confirm?token=…` */
  signInUrl: string;
  /** How long the link works, in words ("15 minutes"). */
  validFor: string;
}

/** The inbox's sign-in link: one button to the confirmation page, whose own button signs in. */
export function OpsSignInEmail({ siteName, signInUrl, validFor }: OpsSignInProps) {
  return (
    <VisitorEmailLayout
      siteName={siteName}
      preview="Your link to sign in to the inbox."
      reason={`You get this email because someone asked to sign in to the ${siteName} inbox with this address. If it was not you, ignore it: the link does nothing unless it is opened and confirmed.`}
    >
      <Heading as="h1" style={styles.heading}>
        Sign in to the inbox
      </Heading>
      <Text style={styles.text}>Open the link, then confirm with the page&apos;s button to sign in.</Text>
      <Section style={{ margin: "8px 0 24px" }}>
        <Button href={signInUrl} style={styles.button}>
          Sign in
        </Button>
      </Section>
      <Text style={styles.muted}>
        Or open this link:{" "}
        <Link href={signInUrl} style={styles.link}>
          {signInUrl}
        </Link>
      </Text>
      <Text style={styles.muted}>The link works once, for {validFor}.</Text>
    </VisitorEmailLayout>
  );
}
