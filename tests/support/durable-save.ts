// Run by tests/integration/durability.test.ts under strace: stores one brief with an attachment and
// subscribes one address in the filesystem inbox given as the first argument, through the app's own
// store code, then prints what it wrote. Nothing else runs in this process, so the trace shows only
// the store's system calls.
import { FilesystemStore } from "@/lib/inbox/filesystem";
import { saveBrief } from "@/lib/inbox";
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
async function main(): Promise<void> {
  const folder = await saveBrief(
    store,
    "briefs",
    {
      reference: "K7QM-3XD9-PTWA-84HC",
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
      attachment: attachment.record,
      verification: "off",
      client: { ipHash: null, userAgent: null, origin: null },
    },
    attachment,
  );
  const { status } = await subscribe(store, { email: "ada@example.com", topics: [], verification: "off" });
  console.log(JSON.stringify({ folder, status }));
}

void main();
