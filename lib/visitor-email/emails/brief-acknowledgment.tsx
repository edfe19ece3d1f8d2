import { Heading } from "@react-email/heading";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { formatBytes } from "../../format";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "../../schemas/brief";
import { NEXT_STEPS } from "../../site/next-steps";
import type { BriefRecord } from "../../inbox";
import { SITE_NAME, styles, VisitorEmailLayout } from "../layout";

export interface BriefAcknowledgmentProps {
  /** The brief as stored: every visitor string in it is shown as text, never trusted as markup. */
  record: Pick<
    BriefRecord,
    | "reference"
    | "name"
    | "email"
    | "company"
    | "role"
    | "projectType"
    | "budget"
    | "timeline"
    | "description"
    | "attachment"
  >;
}

/** "We received your brief – <reference>" (an en dash, as the contract writes it). */
export function briefAcknowledgmentSubject(reference: string): string {
  return `We received your brief \u2013 ${reference}`;
}

const label = { fontWeight: 600 } as const;

/** What the submitter sent, with the form's labels, and what happens next. */
export function BriefAcknowledgmentEmail({ record }: BriefAcknowledgmentProps) {
  const rows: [string, string][] = [
    ["Name", record.name],
    ["Email", record.email],
    ...(record.company ? [["Company", record.company] as [string, string]] : []),
    ...(record.role ? [["Role", record.role] as [string, string]] : []),
    ["Project type", PROJECT_TYPES[record.projectType]],
    ["Budget", BUDGETS[record.budget]],
    ["Timeline", TIMELINES[record.timeline]],
    ...(record.attachment
      ? [
          ["Attachment", `${record.attachment.originalName} (${formatBytes(record.attachment.size)})`] as [
            string,
            string,
          ],
        ]
      : []),
  ];
  return (
    <VisitorEmailLayout
      preview={`Your reference is ${record.reference}.`}
      reason={`You get this email because a project brief was sent from ${record.email} on the ${SITE_NAME} website. If it was not you, ignore it, or reply and tell us.`}
    >
      <Heading as="h1" style={styles.heading}>
        We received your brief
      </Heading>
      <Text style={styles.text}>
        Thank you, {record.name}. Your reference is {record.reference}: quote it if you write to us, or simply
        reply to this email.
      </Text>
      <Heading as="h2" style={{ ...styles.text, fontWeight: 700 }}>
        What you sent
      </Heading>
      <Section>
        {rows.map(([name, value]) => (
          <Text key={name} style={{ ...styles.text, margin: "0 0 4px" }}>
            <span style={label}>{name}:</span> {value}
          </Text>
        ))}
        <Text style={{ ...styles.text, margin: "12px 0 4px" }}>
          <span style={label}>Description:</span>
        </Text>
        <Text style={{ ...styles.text, whiteSpace: "pre-wrap" }}>{record.description}</Text>
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
