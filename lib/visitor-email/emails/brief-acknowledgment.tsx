import { Heading } from "@react-email/heading";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { formatBytes } from "../../format";
import type { AttachmentRecord, BriefRecord } from "../../briefs";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "../../schemas/brief";
import { NEXT_STEPS } from "../../site/next-steps";
import { SITE_NAME, styles, VisitorEmailLayout } from "../layout";
import type { RenderedEmail } from "../render";
import { emailTemplate } from "../template";

export interface BriefAcknowledgmentProps {
  /**
   * Only what the visitor chose, never what they typed (name, company, role, description, file
   * name): anyone can put someone else's address in the form, so free text here would let them
   * send that person whatever they like from the studio's domain.
   */
  record: Pick<BriefRecord, "reference" | "projectType" | "budget" | "timeline"> & {
    attachment: Pick<AttachmentRecord, "size"> | null;
  };
}

/** "We received your brief – <reference>" (an en dash, as the contract writes it). */
export function briefAcknowledgmentSubject(reference: string): string {
  return `We received your brief \u2013 ${reference}`;
}

const label = { fontWeight: 600 } as const;

/** What the acknowledgment shows, each as the text it shows: the choices' labels, the file in words. */
export interface BriefAcknowledgmentContent {
  reference: string;
  projectType: string;
  budget: string;
  timeline: string;
  /** `none`, or `a file (<size>)`. */
  attachment: string;
}

/** The content of `record`'s acknowledgment: only the form's own labels and the file's size. */
export function briefAcknowledgmentContent(
  record: BriefAcknowledgmentProps["record"],
): BriefAcknowledgmentContent {
  return {
    reference: record.reference,
    projectType: PROJECT_TYPES[record.projectType],
    budget: BUDGETS[record.budget],
    timeline: TIMELINES[record.timeline],
    attachment: record.attachment ? `a file (${formatBytes(record.attachment.size)})` : "none",
  };
}

/** The reference, the choices made with the form's labels, whether a file came, and what happens next. */
export function BriefAcknowledgmentEmail({ record }: BriefAcknowledgmentProps) {
  return BriefAcknowledgment(briefAcknowledgmentContent(record));
}

/**
 * The acknowledgment's React Email source, from its content. Rendered once per set of choices by
 * `renderBriefAcknowledgment`, with the reference and the file's words filled in per brief.
 */
export function BriefAcknowledgment(content: BriefAcknowledgmentContent) {
  const rows: [string, string][] = [
    ["Project type", content.projectType],
    ["Budget", content.budget],
    ["Timeline", content.timeline],
    ["Attachment", content.attachment],
  ];
  return (
    <VisitorEmailLayout
      preview={`Your reference is ${content.reference}.`}
      reason={`You get this email because a project brief was sent with this address on the ${SITE_NAME} website. If it was not you, ignore it, or reply and tell us.`}
    >
      <Heading as="h1" style={styles.heading}>
        We received your brief
      </Heading>
      <Text style={styles.text}>
        Thank you. Your reference is {content.reference}: quote it if you write to us, or simply reply to this
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

const acknowledgmentTemplate = emailTemplate(BriefAcknowledgment, ["reference", "attachment"]);

/** Both bodies of `record`'s acknowledgment, as `renderEmail(BriefAcknowledgmentEmail({ record }))` gives them. */
export function renderBriefAcknowledgment(
  record: BriefAcknowledgmentProps["record"],
): Promise<RenderedEmail> {
  return acknowledgmentTemplate(briefAcknowledgmentContent(record));
}
