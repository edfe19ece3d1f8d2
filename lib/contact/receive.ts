import { hashClientAddress } from "../http/client-address";
import { toApiError, validationFailed } from "../http/errors";
import { type ObjectStore, StoreUnavailableError } from "../store";
import {
  type BriefRecord,
  type ClientRecord,
  SAVE_DEADLINES,
  saveBrief,
  StagedUploadTakenError,
} from "../briefs";
import { type Channel, type ChannelName, storedAttachment } from "../notify";
import { deliveryFile } from "../briefs";
import type { BriefAcknowledger, Deliveries } from "../deliveries";
import { newReference } from "../reference";
import type { Verification } from "../verification";
import type { SpamRules } from "../config";
import { spamByRules } from "./spam-rules";
import { STAGED_UPLOAD_TAKEN } from "./staging";
import type { Submission } from "./submission";

/** What receiving a brief needs; the app's services (lib/services.ts) have all of it. */
export interface BriefIntakeServices {
  store: ObjectStore;
  /** The configured channels, in the order webhook, email, slack. */
  channels: readonly Channel[];
  /** Emails each brief's sender (`CONTACT_ACKNOWLEDGE=true`); `null` when that is off. */
  acknowledger: BriefAcknowledger | null;
  /** Makes, logs and retries the channels' attempts (and the acknowledgment's). */
  deliveries: Deliveries;
  config: { spamRules: SpamRules | null };
}

export interface Receipt {
  reference: string;
  /** The channels that accepted the notification, in the order webhook, email, slack. */
  forwarded: ChannelName[];
}

/** Who sent a brief, as far as it is kept: the address only as a salted hash. */
export function describeClient(request: Request, address: string | null, salt: string): ClientRecord {
  const clip = (value: string | null) => (value === null ? null : value.slice(0, 512));
  return {
    ipHash: hashClientAddress(address, salt),
    userAgent: clip(request.headers.get("user-agent")),
    origin: clip(request.headers.get("origin")),
  };
}

/**
 * Stores a valid brief in the inbox (503 when the store cannot be written), then notifies the
 * configured channels and records how each did in `delivery.json`, retrying what failed on the
 * schedule (lib/deliveries). Past the store nothing fails
 * the request: the brief is safe, and `forwarded` says who was told. With `CONTACT_ACKNOWLEDGE=true`
 * the sender is emailed beside the channels, within the same bound (`delivery.json`'s
 * `acknowledgment`). With nothing configured to notify, `delivery.json` (`{}`) is written with
 * `brief.json` in one flush. Spam (the honeypot, or a rule of `SPAM_KEYWORDS` or
 * `SPAM_EMAIL_DOMAINS`) is stored under `spam/` with what caught it, notifies nobody, acknowledges
 * nothing, and gets no `delivery.json`, since nothing was attempted.
 */
export async function receiveBrief(
  services: BriefIntakeServices,
  submission: Submission,
  client: ClientRecord,
  verification: Verification,
  receivedAt = new Date(),
): Promise<Receipt> {
  const { brief, attachment, attribution } = submission;
  // The honeypot first: a bot that filled it is spam whatever it wrote.
  const spam = submission.spam ?? spamByRules(services.config.spamRules, brief);
  const record: BriefRecord = {
    reference: newReference(),
    receivedAt: receivedAt.toISOString(),
    name: brief.name,
    email: brief.email,
    company: brief.company ?? null,
    role: brief.role ?? null,
    projectType: brief.projectType,
    budget: brief.budget,
    timeline: brief.timeline,
    description: brief.description,
    consent: brief.consent,
    attachment: attachment?.record ?? null,
    verification,
    client,
    attribution,
    ...(spam ? { spam } : {}),
  };
  // With no channel and no acknowledgment, the outcome is known before anything is sent: `{}` is
  // written with brief.json, in the same flush, instead of as a second durable write after it.
  const nothingToNotify = !spam && services.channels.length === 0 && !services.acknowledger;
  const alongside = nothingToNotify ? [deliveryFile({})] : [];
  let folder: string;
  try {
    folder = await saveBrief(
      services.store,
      spam ? "spam" : "briefs",
      record,
      attachment,
      SAVE_DEADLINES,
      alongside,
    );
  } catch (error) {
    if (error instanceof StagedUploadTakenError) {
      throw validationFailed({ brief: STAGED_UPLOAD_TAKEN });
    }
    if (error instanceof StoreUnavailableError) {
      console.error(`[contact] brief ${record.reference} not stored`, error);
      throw toApiError(error);
    }
    throw error;
  }
  if (spam || nothingToNotify) return { reference: record.reference, forwarded: [] };

  const notice = {
    record,
    attachment: record.attachment && storedAttachment(services.store, folder, record.attachment),
    folder,
  };
  const { forwarded } = await services.deliveries.deliverNew(notice, { acknowledge: true });
  return { reference: record.reference, forwarded };
}
