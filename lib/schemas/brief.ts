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
  return z.enum(Object.keys(options) as [keyof T & string, ...(keyof T & string)[]], { error: message });
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
    .transform(() => true as const),
});

/** The brief's text fields as submitted (strings, before validation). */
export type BriefInput = z.input<typeof briefSchema>;
/** A valid brief: trimmed, optional fields absent when empty, `consent` true. */
export type Brief = z.output<typeof briefSchema>;

/** The names of the fields the schema knows, in form order. */
export const BRIEF_FIELDS = Object.keys(briefSchema.shape) as (keyof Brief)[];
