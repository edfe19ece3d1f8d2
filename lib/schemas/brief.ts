import { z } from "zod";
import { email, optionalText, text } from "./text";

/**
 * The project brief: field rules and the option labels the form shows. Shared by the contact
 * form (in the browser) and the contact route, so it imports nothing server-only.
 */

export const PROJECT_TYPES = {
  "web-application": "Web application",
  "mobile-application": "Mobile application",
  "ai-system": "AI system",
  "saas-platform": "SaaS platform",
  "data-platform": "Data platform",
  integration: "Integration or automation",
  other: "Something else",
} as const;

export const BUDGETS = {
  "under-25k": "Under $25k",
  "25k-50k": "$25k-$50k",
  "50k-100k": "$50k-$100k",
  "100k-250k": "$100k-$250k",
  "over-250k": "Over $250k",
  undecided: "Not decided yet",
} as const;

export const TIMELINES = {
  asap: "As soon as possible",
  "1-3-months": "1-3 months",
  "3-6-months": "3-6 months",
  "6-plus-months": "6+ months",
  exploring: "Just exploring",
} as const;

export type ProjectType = keyof typeof PROJECT_TYPES;
export type Budget = keyof typeof BUDGETS;
export type Timeline = keyof typeof TIMELINES;

function choice<T extends Record<string, string>>(options: T, message: string) {
  const labels = Object.entries(options).map(([value, label]) => `\`${value}\` (${label})`);
  return z
    .enum(Object.keys(options) as [keyof T & string, ...(keyof T & string)[]], { error: message })
    .meta({ description: `One of the form's options: ${labels.join(", ")}.` });
}

export const BRIEF_LIMITS = {
  name: { min: 2, max: 120 },
  company: { max: 160 },
  role: { max: 120 },
  description: { min: 30, max: 6000 },
} as const;

/** 10 MiB: the largest attachment a brief may carry. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** Extensions the form's file picker offers; the server decides from the bytes, not from these. */
export const ATTACHMENT_ACCEPT = ".pdf,.docx,.txt,.md,.png,.jpg,.jpeg";

export const briefSchema = z.object({
  name: text({ label: "Name", ...BRIEF_LIMITS.name }),
  email,
  company: optionalText({ label: "Company", ...BRIEF_LIMITS.company }),
  role: optionalText({ label: "Role", ...BRIEF_LIMITS.role }),
  projectType: choice(PROJECT_TYPES, "Choose the kind of project."),
  budget: choice(BUDGETS, "Choose a budget range."),
  timeline: choice(TIMELINES, "Choose a timeline."),
  description: text({ label: "Description", ...BRIEF_LIMITS.description, multiline: true }),
  consent: z
    .literal("on", { error: "Please agree to be contacted about your brief." })
    .meta({ description: "Exactly `on`: the visitor agrees to be contacted about the brief." })
    .transform(() => true as const),
});

/** The brief's text fields as submitted (strings, before validation). */
export type BriefInput = z.input<typeof briefSchema>;
/** A valid brief: trimmed, optional fields absent when empty, `consent` true. */
export type Brief = z.output<typeof briefSchema>;

/** The names of the fields the schema knows, in form order. */
export const BRIEF_FIELDS = Object.keys(briefSchema.shape) as (keyof Brief)[];

/** Each field's rule in a visitor's words: shown under the input, and as the error when only the field name is known. */
export const BRIEF_HINTS = {
  name: "2 to 120 characters.",
  email: "We reply to this address.",
  company: "Up to 160 characters.",
  role: "Up to 120 characters.",
  projectType: "Choose the kind of project.",
  budget: "Choose a budget range.",
  timeline: "Choose a timeline.",
  description: "What you want to build, for whom, and what success looks like. 30 to 6000 characters.",
  brief: "PDF, DOCX, TXT, MD, PNG or JPG, up to 10 MB.",
  consent: "We use your details only to answer this brief.",
} as const satisfies Record<keyof Brief | "brief", string>;

export type BriefFormField = keyof typeof BRIEF_HINTS;

/** The form's fields in the order they appear, so focus goes to the first invalid one. */
export const BRIEF_FORM_ORDER = Object.keys(BRIEF_HINTS) as BriefFormField[];

/** The browser's own check of a chosen file (the server decides the type from its bytes). */
export function checkAttachmentChoice(file: { name: string; size: number }): string | null {
  if (file.size > MAX_ATTACHMENT_BYTES) return "The file is larger than 10 MB. Attach a smaller one.";
  if (file.size === 0) return "The file is empty.";
  const extension = file.name.toLowerCase().match(/\.[a-z0-9]+$/)?.[0] ?? "";
  if (!ATTACHMENT_ACCEPT.split(",").includes(extension)) {
    return "Attach a PDF, DOCX, TXT, MD, PNG or JPG file.";
  }
  return null;
}
