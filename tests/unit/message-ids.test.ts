import { createTransport } from "nodemailer";
import { describe, expect, it } from "vitest";
import { MessageIds } from "@/lib/notify/message-ids";

/** The Message-ID and boundaries nodemailer makes itself for a message from `from`. */
async function nodemailersOwn(from: { name: string; address: string }): Promise<string> {
  const transport = createTransport({ streamTransport: true, buffer: true });
  const info = await transport.sendMail({
    from,
    to: "ada@example.com",
    subject: "s",
    text: "t",
    html: "<p>t</p>",
  });
  return (info.message as Buffer).toString("latin1");
}

const FROMS = [
  { name: "Northwind Studio", address: "intake@studio.example" },
  { name: "", address: "Intake@Studio.EXAMPLE" },
  { name: "Ünïcode", address: "hello@bücher.example" },
  { name: "Sub", address: "a.b+c@mail.sub.studio.example" },
];

describe("MessageIds", () => {
  it.each(FROMS)("makes a Message-ID of nodemailer's form and domain for $address", async (from) => {
    const own = await nodemailersOwn(from);
    const ownId = /^Message-ID: (<[^>]+>)$/m.exec(own)?.[1] ?? "";
    const made = new MessageIds(from).next();
    const idForm = /^<[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@(.+)>$/;
    expect(ownId).toMatch(idForm);
    expect(made.messageId).toMatch(idForm);
    expect(idForm.exec(made.messageId)?.[1]).toBe(idForm.exec(ownId)?.[1]);
  });

  it("makes a base boundary of nodemailer's form, new for every message", async () => {
    const own = await nodemailersOwn(FROMS[0]!);
    const ownBase = /boundary="--_NmP-([0-9a-f]+)-Part_1"/.exec(own)?.[1] ?? "";
    const ids = new MessageIds(FROMS[0]!);
    const [first, second] = [ids.next(), ids.next()];
    expect(ownBase).toMatch(/^[0-9a-f]{16}$/);
    expect(first.baseBoundary).toMatch(/^[0-9a-f]{16}$/);
    expect(first.baseBoundary).not.toBe(second.baseBoundary);
    expect(first.messageId).not.toBe(second.messageId);
  });
});
