/**
 * Each email's subject: plain text, no React Email. `siteName` is `SITE_NAME`, what the site calls
 * itself (a single line, checked at start).
 */

/** "We received your brief – <reference>" (an en dash, as the contract writes it). */
export function briefAcknowledgmentSubject(reference: string): string {
  return `We received your brief \u2013 ${reference}`;
}

export function newsletterConfirmationSubject(siteName: string): string {
  return `Confirm your subscription to the ${siteName} newsletter`;
}

export function opsSignInSubject(siteName: string): string {
  return `Sign in to the ${siteName} inbox`;
}
