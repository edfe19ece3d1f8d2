import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SmtpTestServer } from "../../tests/support/smtp";
import { ACKNOWLEDGED, CONFIRMED } from "./scenarios";

/**
 * Whether every request the part-2 server took produced its email: the server's own records (each
 * stored brief's `delivery.json`, each pending subscriber) against what the SMTP server accepted.
 * Counted over the whole run, warm-up included, and over requests whose answer the client no longer
 * waited for at the end of a round: the server finished those too.
 */
export interface EmailCheck {
  /** Briefs stored from the acknowledged senders, and how many of them `delivery.json` records as acknowledged. */
  briefs: number;
  acknowledgedInDelivery: number;
  /** Acknowledgments the SMTP server accepted, and the stored briefs' senders among their recipients. */
  acknowledgmentsReceived: number;
  briefsWithTheirEmail: number;
  /** Pending subscribers stored, confirmation emails accepted, and subscribers among their recipients. */
  subscribers: number;
  confirmationsReceived: number;
  subscribersWithTheirEmail: number;
  /** Emails to any other address, or a second one to the same address (there should be none). */
  otherEmails: number;
}

async function jsonFiles(folder: string, name: string | null): Promise<unknown[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter(
    (entry) => entry.isFile() && (name === null ? entry.name.endsWith(".json") : entry.name === name),
  );
  return Promise.all(
    files.map(
      async (entry) => JSON.parse(await readFile(join(entry.parentPath, entry.name), "utf8")) as unknown,
    ),
  );
}

export async function checkEmails(inbox: string, smtp: SmtpTestServer): Promise<EmailCheck> {
  const recipients = smtp.envelopes.flatMap((envelope) => envelope.to.map((to) => to.toLowerCase()));
  const ofKind = (kind: typeof ACKNOWLEDGED) =>
    recipients.filter((to) => to.startsWith(kind.prefix) && to.endsWith(kind.domain));
  const acknowledged = new Set(ofKind(ACKNOWLEDGED));
  const confirmed = new Set(ofKind(CONFIRMED));

  const briefs = (await jsonFiles(join(inbox, "briefs"), "brief.json")) as {
    email: string;
    reference: string;
  }[];
  const deliveries = (await jsonFiles(join(inbox, "briefs"), "delivery.json")) as {
    acknowledgment?: { ok: boolean };
  }[];
  const subscribers = (await jsonFiles(join(inbox, "newsletter", "subscribers"), null)) as {
    email: string;
    status: string;
  }[];
  const pending = subscribers.filter((record) => record.status === "pending");
  return {
    briefs: briefs.length,
    acknowledgedInDelivery: deliveries.filter((delivery) => delivery.acknowledgment?.ok === true).length,
    acknowledgmentsReceived: ofKind(ACKNOWLEDGED).length,
    briefsWithTheirEmail: briefs.filter((brief) => acknowledged.has(brief.email.toLowerCase())).length,
    subscribers: pending.length,
    confirmationsReceived: ofKind(CONFIRMED).length,
    subscribersWithTheirEmail: pending.filter((record) => confirmed.has(record.email.toLowerCase())).length,
    otherEmails: recipients.length - acknowledged.size - confirmed.size,
  };
}
