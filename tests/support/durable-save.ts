// Run by tests/integration/durability.test.ts under strace: stores one brief with an attachment and
// subscribes one address in the filesystem inbox given as the first argument, through the app's own
// store code, then prints what it wrote. Nothing else runs in this process, so the trace shows only
// the store's system calls. Then it saves eight more briefs and eight subscriptions at once, whose
// directory fsyncs the store may share (group commit): each must still be covered by a sync that
// began after its entry was made.
import { FilesystemStore } from "@/lib/store/filesystem";
import { type BriefRecord, SAVE_DEADLINES, saveBrief } from "@/lib/briefs";
import { subscribe } from "@/lib/newsletter";

const root = process.argv[2];
if (!root) throw new Error("usage: durable-save.ts <inbox dir>");
const store = new FilesystemStore(root);
const chunks = [Buffer.from("%PDF-1.7\nbody of the file\n%%EOF\n")];
const attachment = {
  record: {
    filename: "attachment.pdf",
    originalName: "brief.pdf",
    contentType: "application/pdf",
    size: chunks[0]!.byteLength,
    sha256: "0".repeat(64),
  },
  chunks,
};
function record(reference: string, withAttachment: boolean): BriefRecord {
  return {
    reference,
    receivedAt: new Date().toISOString(),
    name: "Ada Lovelace",
    email: "ada@example.com",
    company: null,
    role: null,
    projectType: "ai-system",
    budget: "50k-100k",
    timeline: "3-6-months",
    description: "A durable brief.",
    consent: true,
    attachment: withAttachment ? attachment.record : null,
    verification: "off",
    attribution: null,
    client: { ipHash: null, userAgent: null, origin: null },
  };
}

async function main(): Promise<void> {
  const folder = await saveBrief(store, "briefs", record("K7QM-3XD9-PTWA-84HC", true), attachment);
  const { status } = await subscribe(store, { email: "ada@example.com", topics: [], verification: "off" });
  const concurrent = await Promise.all([
    // Each with its delivery.json written in the same flush, as when nothing is to be notified.
    ...Array.from({ length: 8 }, (_, i) =>
      saveBrief(store, "briefs", record(`K7QM-3XD9-PTWA-9${i}HC`, false), null, SAVE_DEADLINES, [
        { name: "delivery.json", body: "{}\n", contentType: "application/json" },
      ]),
    ),
    ...Array.from({ length: 8 }, (_, i) =>
      subscribe(store, { email: `reader-${i}@example.com`, topics: [], verification: "off" }).then(
        (outcome) => outcome.status,
      ),
    ),
  ]);
  console.log(JSON.stringify({ folder, status, concurrent }));
}

void main();
