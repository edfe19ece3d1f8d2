import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AttachmentRecord, BriefRecord } from "@/lib/briefs";
import { FilesystemStore } from "@/lib/store/filesystem";
import { describeFailure, fanOut, forwardedChannels } from "@/lib/notify/fan-out";
import { recordInBackground, writeDelivery } from "@/lib/briefs";
import { escapeHtml, html } from "@/lib/notify/html";
import { attachmentFileName, emailSubject, emailText } from "@/lib/notify/message";
import { briefReceivedBody, briefReceivedEvent } from "@/lib/notify/payload";
import { slackMessage } from "@/lib/notify/slack";
import type { BriefNotice, Channel, ChannelName } from "@/lib/notify/types";
import { signatureHeaders } from "@/lib/notify/webhook";

const ATTACHMENT: AttachmentRecord = {
  filename: "attachment.pdf",
  originalName: "Project brief.pdf",
  contentType: "application/pdf",
  size: 12_345,
  sha256: "a".repeat(64),
};

function record(overrides: Partial<BriefRecord> = {}): BriefRecord {
  return {
    reference: "K7QM-3XD9-PTWA-84HC",
    receivedAt: "2026-11-22T10:00:00.000Z",
    name: "Ada Lovelace",
    email: "ada@example.com",
    company: "Analytical Engines Ltd",
    role: null,
    projectType: "ai-system",
    budget: "50k-100k",
    timeline: "3-6-months",
    description: "We need a system that computes Bernoulli numbers.",
    consent: true,
    attachment: ATTACHMENT,
    verification: "passed",
    attribution: null,
    client: { ipHash: "f".repeat(64), userAgent: "Mozilla/5.0", origin: "https://studio.example" },
    ...overrides,
  };
}

function notice(overrides: Partial<BriefRecord> = {}): BriefNotice {
  return { record: record(overrides), attachment: null, folder: "briefs/2026/11/22/K7QM-3XD9-PTWA-84HC" };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("briefReceivedEvent", () => {
  it("is the contract's payload, and nothing the receiver is not meant to see", () => {
    expect(briefReceivedEvent(record())).toStrictEqual({
      type: "brief.received",
      reference: "K7QM-3XD9-PTWA-84HC",
      receivedAt: "2026-11-22T10:00:00.000Z",
      verification: "passed",
      attribution: null,
      brief: {
        name: "Ada Lovelace",
        email: "ada@example.com",
        company: "Analytical Engines Ltd",
        role: null,
        projectType: "ai-system",
        budget: "50k-100k",
        timeline: "3-6-months",
        description: "We need a system that computes Bernoulli numbers.",
        consent: true,
      },
      attachment: {
        filename: "attachment.pdf",
        contentType: "application/pdf",
        size: 12_345,
        sha256: "a".repeat(64),
      },
    });
  });

  it("has attachment null without a file", () => {
    expect(briefReceivedEvent(record({ attachment: null })).attachment).toBeNull();
  });

  it("carries where the lead came from as brief.json keeps it, beside verification; spam's verdict never", () => {
    const attribution = { page: "/pricing", utm: { source: "newsletter", campaign: "spring" } };
    const event = briefReceivedEvent(record({ attribution, spam: { reason: "keyword", match: "x" } }));
    expect(event.attribution).toStrictEqual(attribution);
    expect(Object.keys(event)).toEqual([
      "type",
      "reference",
      "receivedAt",
      "verification",
      "attribution",
      "brief",
      "attachment",
    ]);
  });
});

describe("bidirectional controls a description (or an older record) keeps", () => {
  const sneaky = record({
    name: "Ann\u202eeeL",
    description: "Invoice \u202efdp.exe\u202c attached;\nsee \u2067here\u2069 \u200e\u200f\u061c.",
    attribution: { page: "/x\u2066y", utm: { source: "s\u202dt" } },
  });
  const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

  it("are shown as code points in the ops email's subject and both bodies, never obeyed", () => {
    const { subject, text, html: body } = emailText({ record: sneaky, folder: "briefs/x", attachment: null });
    for (const part of [subject, text, body]) expect(part).not.toMatch(BIDI);
    expect(subject).toContain("Ann<U+202E>eeL");
    expect(text).toContain("Invoice <U+202E>fdp.exe<U+202C> attached;");
    expect(text).toContain("see <U+2067>here<U+2069> <U+200E><U+200F><U+061C>.");
    expect(text).toContain("/x<U+2066>y");
    expect(body).toContain("Invoice &lt;U+202E&gt;fdp.exe&lt;U+202C&gt; attached;");
    expect(body).toContain("s&lt;U+202D&gt;t");
  });

  it("are shown as code points in the Slack message", () => {
    const message = slackMessage(sneaky, null);
    expect(JSON.stringify(message)).not.toMatch(BIDI);
    expect(message.text).toContain("Ann&lt;U+202E&gt;eeL");
    expect(message.text).toContain("Invoice &lt;U+202E&gt;fdp.exe&lt;U+202C&gt;");
  });

  it("stay the stored values in the webhook's JSON, written as escapes in its body", () => {
    const body = briefReceivedBody(sneaky);
    expect(body).not.toMatch(BIDI);
    expect(body).toContain("Invoice \\u202efdp.exe\\u202c attached;");
    expect(JSON.parse(body)).toStrictEqual(briefReceivedEvent(sneaky));
  });
});

describe("signatureHeaders", () => {
  it("verify with the same secret, with an id stable per brief", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = JSON.stringify(briefReceivedEvent(record()));
    const headers = signatureHeaders(new Webhook(secret), "K7QM-3XD9-PTWA-84HC", body);
    expect(headers["webhook-id"]).toBe("msg_K7QM-3XD9-PTWA-84HC");
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook("whsec_c2VjcmV0").verify(body, headers)).toThrow();
  });
});

describe("escapeHtml and html", () => {
  it.each([
    ["plain", "plain"],
    ["<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    [`"quoted" & 'single'`, "&quot;quoted&quot; &amp; &#39;single&#39;"],
    ["&amp; stays visible", "&amp;amp; stays visible"],
    ["Ünïcødé ✓", "Ünïcødé ✓"],
  ])("escapeHtml(%j) -> %j", (value, expected) => {
    expect(escapeHtml(value)).toBe(expected);
  });

  it("escapes every interpolated value, but not markup made by html itself", () => {
    const cell = html`<td>${"<b>"}</td>`;
    // prettier-ignore
    const out = html`<tr title="${'"x"'}">${cell}${[html`<br>`, "<i>"]}${null}${undefined}${42}</tr>`;
    expect(out.value).toBe('<tr title="&quot;x&quot;"><td>&lt;b&gt;</td><br>&lt;i&gt;42</tr>');
  });
});

describe("email text", () => {
  it.each([
    ["Ada Lovelace", "New brief K7QM-3XD9-PTWA-84HC from Ada Lovelace"],
    ["Grace\r\nBcc: eve@evil.example", "New brief K7QM-3XD9-PTWA-84HC from Grace Bcc: eve@evil.example"],
    ["  Tab\there  ", "New brief K7QM-3XD9-PTWA-84HC from Tab here"],
  ])("subject for a sender named %j is %j, on one line", (name, subject) => {
    expect(emailSubject(record({ name }))).toBe(subject);
  });

  it.each([
    ["Project brief.pdf", "attachment.pdf", "Project brief.pdf"],
    ["brief.pdf", "attachment.png", "brief.png"],
    ["attachment", "attachment.docx", "attachment.docx"],
    ["notes", "attachment.md", "notes.md"],
    ["archive.tar.gz", "attachment.txt", "archive.tar.txt"],
    ["Résumé final.PDF", "attachment.pdf", "Résumé final.pdf"],
  ])("a file the visitor named %j, stored as %j, is attached as %j", (originalName, filename, expected) => {
    expect(attachmentFileName({ ...ATTACHMENT, originalName, filename })).toBe(expected);
  });

  it("puts every piece of visitor text in the HTML body escaped, and in the text body as typed", () => {
    const nasty = `<img src=x onerror=alert(1)>"'&`;
    const { text, html: body } = emailText(
      notice({
        name: `Eve ${nasty}`,
        email: "eve@example.com",
        company: `Co ${nasty}`,
        role: `Role ${nasty}`,
        description: `Line one ${nasty}\nLine two <script>alert(2)</script>`,
        attachment: { ...ATTACHMENT, originalName: `File ${nasty}.pdf` },
      }),
    );
    const escaped = "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;";
    expect(body).not.toMatch(/<img|<script/);
    for (const part of [`Eve ${escaped}`, `Co ${escaped}`, `Role ${escaped}`, `File ${escaped}.pdf`]) {
      expect(body).toContain(part);
    }
    expect(body).toMatch(/Line one &lt;img[^<]*<br ?\/?>Line two &lt;script&gt;alert\(2\)&lt;\/script&gt;/);
    // Twice: the summary and the closing line.
    expect(body.split(`Eve ${escaped}`)).toHaveLength(3);

    expect(text).toContain(`Name:          Eve ${nasty}`);
    expect(text).toContain(`Line one ${nasty}\nLine two <script>alert(2)</script>`);
  });

  it("summarises the brief with the form's labels and where it is stored", () => {
    const { text, html: body } = emailText(notice());
    expect(text).toBe(
      [
        "New project brief K7QM-3XD9-PTWA-84HC",
        "Received 2026-11-22T10:00:00.000Z, stored at briefs/2026/11/22/K7QM-3XD9-PTWA-84HC/",
        "",
        "Name:          Ada Lovelace",
        "Email:         ada@example.com",
        "Company:       Analytical Engines Ltd",
        "Role:          —",
        "Project type:  AI system",
        "Budget:        $50k-$100k",
        "Timeline:      3-6 months",
        "Attachment:    Project brief.pdf (application/pdf, 12.1 KB), attached",
        "Human check:   passed (Cloudflare Turnstile)",
        "",
        "Description",
        "-----------",
        "We need a system that computes Bernoulli numbers.",
        "",
        "Reply to this email to answer Ada Lovelace.",
        "",
      ].join("\n"),
    );
    expect(body).toContain("$50k-$100k");
    expect(body).toContain("briefs/2026/11/22/K7QM-3XD9-PTWA-84HC/");
    expect(text).not.toMatch(/^Human check: (not done|off)/m);
  });

  it.each([
    ["unavailable", /Human check: not done\. Cloudflare Turnstile could not be reached/, "NOT CHECKED"],
    [
      "off",
      /Human check: off\. Human verification \(Cloudflare Turnstile\) is not configured/,
      "off (not configured)",
    ],
  ] as const)("says plainly above the summary when the human check was %s", (verification, line, row) => {
    const { text, html: body } = emailText(notice({ verification }));
    const lines = text.split("\n");
    // Right under the heading lines, before the summary starts.
    expect(lines[3]).toMatch(line);
    expect(lines.findIndex((line) => line.startsWith("Name:"))).toBeGreaterThan(3);
    expect(text).toMatch(new RegExp(`^Human check: +${row.replace(/[()]/g, "\\$&")}`, "m"));
    expect(body).toMatch(line);
    expect(body.indexOf("Human check: ")).toBeLessThan(body.indexOf("Ada Lovelace"));
  });
});

/** A channel for the fan-out: settles as told, and remembers whether its signal was aborted. */
function channel(
  name: ChannelName,
  behaviour: { after: number; fail?: Error } | "hang" | "deaf",
): Channel & { aborted: () => boolean } {
  let signalSeen: AbortSignal | null = null;
  return {
    name,
    aborted: () => signalSeen?.aborted === true,
    deliver(_notice, signal) {
      signalSeen = signal;
      if (behaviour === "deaf") return new Promise<undefined>(() => {});
      return new Promise<number>((resolve, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
        if (behaviour === "hang") return;
        setTimeout(() => (behaviour.fail ? reject(behaviour.fail) : resolve(200)), behaviour.after);
      });
    },
  };
}

describe("fanOut", () => {
  it("runs the channels in parallel and records each success", async () => {
    const started = Date.now();
    const delivery = await fanOut(
      [channel("webhook", { after: 150 }), channel("email", { after: 150 })],
      notice(),
      1000,
    );
    expect(Date.now() - started).toBeLessThan(290);
    expect(delivery).toEqual({
      webhook: { ok: true, at: expect.any(String), ms: expect.any(Number), status: 200 },
      email: { ok: true, at: expect.any(String), ms: expect.any(Number), status: 200 },
    });
    expect(delivery.webhook?.ms).toBeGreaterThanOrEqual(140);
    expect(Date.parse(delivery.webhook?.at ?? "")).toBeGreaterThanOrEqual(started);
  });

  it("records a failure with its reason, apart from the other channel", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const delivery = await fanOut(
      [
        channel("webhook", { after: 5, fail: new Error("answered HTTP 500") }),
        channel("email", { after: 5 }),
      ],
      notice(),
      1000,
    );
    expect(delivery).toEqual({
      webhook: {
        ok: false,
        at: expect.any(String),
        ms: expect.any(Number),
        error: "answered HTTP 500",
        // A plain error (no status) may pass: worth another attempt.
        failure: { retryable: true },
      },
      email: { ok: true, at: expect.any(String), ms: expect.any(Number), status: 200 },
    });
    expect(forwardedChannels(delivery)).toEqual(["email"]);
  });

  it.each(["hang", "deaf"] as const)(
    "gives up on a channel that does not finish in time (%s), aborting its work",
    async (behaviour) => {
      vi.spyOn(console, "warn").mockImplementation(() => {});
      const slow = channel("email", behaviour);
      const started = Date.now();
      const delivery = await fanOut([channel("webhook", { after: 5 }), slow], notice(), 200);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(195);
      expect(elapsed).toBeLessThan(400);
      expect(delivery.email).toEqual({
        ok: false,
        at: expect.any(String),
        ms: expect.any(Number),
        error: "no answer within 200 ms",
        failure: { retryable: true },
      });
      expect(delivery.webhook?.ok).toBe(true);
      expect(slow.aborted()).toBe(true);
    },
  );

  it("records nothing when no channel is configured", async () => {
    expect(await fanOut([], notice(), 1000)).toEqual({});
  });
});

describe("forwardedChannels", () => {
  const ok = { ok: true, at: "2026-11-22T10:00:00.000Z", ms: 3 };
  const failed = { ok: false, at: "2026-11-22T10:00:00.000Z", ms: 3, error: "x" };
  it.each([
    [{}, []],
    [{ email: ok, webhook: ok }, ["webhook", "email"]],
    [{ webhook: failed, email: ok }, ["email"]],
    [{ webhook: ok, email: failed }, ["webhook"]],
    [{ webhook: failed, email: failed }, []],
  ])("%j -> %j", (delivery, expected) => {
    expect(forwardedChannels(delivery)).toEqual(expected);
  });
});

describe("describeFailure", () => {
  it("joins an error's causes into one line", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    expect(describeFailure(new TypeError("fetch failed", { cause }))).toBe(
      "fetch failed: connect ECONNREFUSED 127.0.0.1:9",
    );
    expect(describeFailure(new Error("line one\nline two"))).toBe("line one line two");
    expect(describeFailure("a string")).toBe("a string");
    expect(describeFailure(new Error("x".repeat(2000)))).toHaveLength(500);
  });
});

describe("recordInBackground", () => {
  let dir: string;
  const folder = "briefs/2026/11/22/K7QM-3XD9-PTWA-84HC";
  const delivery = { webhook: { ok: true, at: "2026-11-22T10:00:01.000Z" } };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "notify-test-"));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes delivery.json beside the brief", async () => {
    const store = new FilesystemStore(dir);
    await recordInBackground(folder, (options) => writeDelivery(store, folder, delivery, options));
    expect(JSON.parse(await readFile(join(dir, folder, "delivery.json"), "utf8"))).toEqual(delivery);
  });

  it("logs a store failure instead of throwing it", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = new FilesystemStore(dir);
    vi.spyOn(store, "put").mockRejectedValue(new Error("disk full"));
    await expect(
      recordInBackground(folder, (options) => writeDelivery(store, folder, delivery, options)),
    ).resolves.toBeUndefined();
    expect(error).toHaveBeenCalledWith(
      `[notify] could not record the delivery of ${folder}`,
      expect.any(Error),
    );
  });

  it("does not hold the response for a store that hangs", async () => {
    const hanging = new FilesystemStore(dir);
    vi.spyOn(hanging, "put").mockReturnValue(new Promise<void>(() => {}));
    const started = Date.now();
    await recordInBackground(folder, (options) => writeDelivery(hanging, folder, delivery, options));
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
