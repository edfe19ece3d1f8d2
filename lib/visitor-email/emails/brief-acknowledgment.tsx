import { Heading } from "@react-email/heading";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { formatBytes } from "../../format";
import type { AttachmentRecord, BriefRecord } from "../../briefs";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "../../schemas/brief";
import { NEXT_STEPS } from "../../site/next-steps";
import { styles, VisitorEmailLayout } from "../layout";
export { briefAcknowledgmentSubject } from "../subjects";

export interface BriefAcknowledgmentProps {
  /** What the site calls itself (`SITE_NAME`). */
  siteName: string;
  /**
   * Only what the visitor chose, never what they typed (name, company, role, description, file
   * name): anyone can put someone else's address in the form, so free text here would let them
   * send that person whatever they like from the studio's domain.
   */
  record: Pick<BriefRecord, "reference" | "projectType" | "budget" | "timeline"> & {
    attachment: Pick<AttachmentRecord, "size"> | null;
  };
}

const label = { fontWeight: 600 } as const;

/** The reference, the choices made with the form's labels, whether a file came, and what happens next. */
export function BriefAcknowledgmentEmail({ siteName, record }: BriefAcknowledgmentProps) {
  const rows: [string, string][] = [
    ["Project type", PROJECT_TYPES[record.projectType]],
    ["Budget", BUDGETS[record.budget]],
    ["Timeline", TIMELINES[record.timeline]],
    ["Attachment", record.attachment ? `a file (${formatBytes(record.attachment.size)})` : "none"],
  ];
  return (
    <VisitorEmailLayout
      siteName={siteName}
      preview={`Your reference is ${record.reference}.`}
      reason={`You get this email because a project brief was sent with this address on the ${siteName} website. If it was not you, ignore it, or reply and tell us.`}
    >
      <Heading as="h1" style={styles.heading}>
        We received your brief
      </Heading>
      <Text style={styles.text}>
        Thank you. Your reference is {record.reference}: quote it if you write to us, or simply reply to this
        email.
      </Text>
      <Heading as="h2" style={{ ...styles.text, fontWeight: 700 }}>
        Your choices
      </Heading>
      <Section>
        {rows.map(([name, value]) => (
          <Text key={name} style={{ ...styles.text, margin: "0 0 4px" }}>
            <span style={label}>{name}:</span> {value}
          </Text>
        ))}
      </Section>
      <Heading as="h2" style={{ ...styles.text, fontWeight: 700 }}>
        What happens next
      </Heading>
      {NEXT_STEPS.map((step, index) => (
        <Text key={step} style={{ ...styles.text, margin: "0 0 4px" }}>
          {`${index + 1}. ${step}`}
        </Text>
      ))}
    </VisitorEmailLayout>
  );
}
