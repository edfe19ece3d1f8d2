/**
 * What happens after a brief is sent: shown on the thank-you page and in the form's success panel,
 * and written into the acknowledgment email, so the three never disagree.
 */
export const NEXT_STEPS: readonly string[] = [
  "A partner reads every brief within two working days.",
  "We reply by email with questions, or to set up a 30-minute call.",
  "If we are a good fit, you get a written proposal within a week of that call.",
];
