import type { Request as CannonRequest } from "autocannon";
import { briefForm, validBrief } from "../../tests/support/contact";
import { makeFileOfSize } from "../../tests/support/files";
import { MiB, multipart, nextAddress } from "./traffic";

/** The routes the bench loads, each with the requests autocannon sends. */

/** Where a request body carries its stamp: 12 characters, replaced by 12 digits in each copy sent. */
const STAMP = "@@@STAMP@@@@";
let stamps = 0;

/**
 * Copies of `template` with every `STAMP` replaced by the next number, so each request carries a
 * Turnstile token and a sender address of its own (siteverify refuses a token checked before, and
 * each address gets at most one email per 10 minutes). Same length as the template, no re-encoding.
 */
function stamped(template: Buffer): () => Buffer {
  const marker = Buffer.from(STAMP, "latin1");
  const offsets: number[] = [];
  for (let at = template.indexOf(marker); at !== -1; at = template.indexOf(marker, at + marker.length))
    offsets.push(at);
  if (offsets.length === 0) throw new Error("the template has no stamp");
  return () => {
    stamps += 1;
    const body = Buffer.from(template);
    const digits = String(stamps).padStart(STAMP.length, "0");
    for (const offset of offsets) body.write(digits, offset, "latin1");
    return body;
  };
}

/** The addresses the part-2 rows send to; the emails are counted by them. */
export const ACKNOWLEDGED = { prefix: "sender-", domain: "@bench.example" };
export const CONFIRMED = { prefix: "reader-", domain: "@bench.example" };

export interface Scenario {
  name: string;
  requests: CannonRequest[];
  /** The status every answer should have (200, or 429 for the flood). */
  expectedStatus: number;
}

/**
 * Every route the bench measures. `health` runs on every server; the part-2 ones need the server
 * with Turnstile, the acknowledgment and double opt-in on, the flood the one with the default
 * limits, `contactBlob` the Blob inbox's.
 */
export interface Scenarios {
  health: Scenario;
  contact: Scenario;
  newsletter: Scenario;
  contactPdf: Scenario;
  flood: Scenario;
  contactBlob: Scenario;
  contactPart2: Scenario;
  newsletterPart2: Scenario;
}

export async function scenarios(): Promise<Scenarios> {
  const withAddress = (request: CannonRequest): CannonRequest => ({
    ...request,
    headers: { ...request.headers, "x-forwarded-for": nextAddress() },
  });
  const plain = await multipart(briefForm(validBrief()));
  const pdf = await multipart(
    briefForm(validBrief(), {
      bytes: makeFileOfSize("pdf", MiB),
      name: "brief.pdf",
      type: "application/pdf",
    }),
  );
  const contact = (form: { body: Buffer; contentType: string }): CannonRequest => ({
    method: "POST",
    path: "/api/contact",
    headers: { "content-type": form.contentType },
    body: form.body,
    setupRequest: withAddress,
  });
  let subscriber = 0;
  const ok = { expectedStatus: 200 } as const;
  // Part 2 on: a token the stand-in passes and a sender of its own on every request.
  const verified = await multipart(
    briefForm(
      validBrief({
        email: `${ACKNOWLEDGED.prefix}${STAMP}${ACKNOWLEDGED.domain}`,
        "cf-turnstile-response": `pass.contact.${STAMP}`,
      }),
    ),
  );
  const stampedContact = (form: { body: Buffer; contentType: string }): CannonRequest => {
    const next = stamped(form.body);
    return { ...contact(form), setupRequest: (request) => withAddress({ ...request, body: next() }) };
  };
  const newSubscriber = stamped(
    Buffer.from(
      JSON.stringify({
        email: `${CONFIRMED.prefix}${STAMP}${CONFIRMED.domain}`,
        topics: ["AI", "Research"],
        "cf-turnstile-response": `pass.newsletter.${STAMP}`,
      }),
    ),
  );
  return {
    health: { ...ok, name: "GET /api/health", requests: [{ method: "GET", path: "/api/health" }] },
    contact: { ...ok, name: "POST /api/contact", requests: [contact(plain)] },
    contactPdf: { ...ok, name: "POST /api/contact + 1 MiB PDF", requests: [contact(pdf)] },
    newsletter: {
      ...ok,
      name: "POST /api/newsletter (new address)",
      requests: [
        {
          method: "POST",
          path: "/api/newsletter",
          headers: { "content-type": "application/json" },
          setupRequest: (request) => {
            subscriber += 1;
            const email = `reader-${process.pid}-${Date.now().toString(36)}-${subscriber}@bench.example`;
            return withAddress({ ...request, body: JSON.stringify({ email, topics: ["AI", "Research"] }) });
          },
        },
      ],
    },
    flood: {
      // One address over the default limit (5 per 10 minutes): every answer past the first five is a
      // 429, which must stay cheap, since a flood is what the limit is for.
      name: "POST /api/contact, 429 flood (one address)",
      expectedStatus: 429,
      requests: [
        {
          method: "POST",
          path: "/api/contact",
          headers: { "content-type": plain.contentType, "x-forwarded-for": "203.0.113.7" },
          body: plain.body,
        },
      ],
    },
    contactBlob: { ...ok, name: "POST /api/contact (Blob inbox)", requests: [contact(plain)] },
    contactPart2: {
      ...ok,
      name: "POST /api/contact (Turnstile + acknowledgment)",
      requests: [stampedContact(verified)],
    },
    newsletterPart2: {
      ...ok,
      name: "POST /api/newsletter (Turnstile + double opt-in)",
      requests: [
        {
          method: "POST",
          path: "/api/newsletter",
          headers: { "content-type": "application/json" },
          setupRequest: (request) => withAddress({ ...request, body: newSubscriber() }),
        },
      ],
    },
  };
}
