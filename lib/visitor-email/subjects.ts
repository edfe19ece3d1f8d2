/** What the site is called in its emails, and each email's subject: plain text, no React Email. */
export const SITE_NAME = "Northwind Studio";

/** "We received your brief – <reference>" (an en dash, as the contract writes it). */
export function briefAcknowledgmentSubject(reference: string): string {
  return `We received your brief \u2013 ${reference}`;
}

export const newsletterConfirmationSubject = `Confirm your subscription to the ${SITE_NAME} newsletter`;

export const opsSignInSubject = `Sign in to the ${SITE_NAME} inbox`;
