import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { formatBytes } from "@/lib/format";
import { newReference } from "@/lib/reference";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "@/lib/schemas/brief";
import { NEWSLETTER_TOPICS } from "@/lib/schemas/newsletter";
import {
  BriefAcknowledgmentEmail,
  type BriefAcknowledgmentProps,
  NewsletterConfirmationEmail,
  type NewsletterConfirmationProps,
  renderBriefAcknowledgment,
  renderEmail,
  renderNewsletterConfirmation,
} from "@/lib/visitor-email";
import { emailTemplate } from "@/lib/visitor-email/template";

/**
 * Emails rendered once per shape and filled in per message (lib/visitor-email/template.ts) are
 * byte for byte what rendering each message gives.
 */

type Record = BriefAcknowledgmentProps["record"];
const keys = <T extends object>(value: T) => Object.keys(value) as (keyof T & string)[];

describe("the acknowledgment, filled in", () => {
  it("is the acknowledgment rendered, for every choice, with and without files of many sizes", async () => {
    const projectTypes = keys(PROJECT_TYPES);
    const budgets = keys(BUDGETS);
    const timelines = keys(TIMELINES);
    const sizes = [null, 0, 1, 1023, 1024, 123_456, 1024 * 1024, 1.5 * 1024 * 1024, 10 * 1024 * 1024];
    const rounds = Math.max(projectTypes.length, budgets.length, timelines.length, sizes.length);
    for (let round = 0; round < rounds; round++) {
      for (const size of [null, sizes[round % sizes.length] ?? null]) {
        const record: Record = {
          reference: newReference(),
          projectType: projectTypes[round % projectTypes.length]!,
          budget: budgets[(round + 1) % budgets.length]!,
          timeline: timelines[(round + 2) % timelines.length]!,
          attachment: size === null ? null : { size },
        };
        expect(await renderBriefAcknowledgment(record)).toEqual(
          await renderEmail(BriefAcknowledgmentEmail({ record })),
        );
      }
    }
  }, 30_000);

  it("is the acknowledgment rendered for a reference of another form (a test's, an older one)", async () => {
    for (const reference of ["NW-20261123-ABCD", "X", "K7QM-3XD9-PTWA-84HC-EXTRA"]) {
      const record: Record = {
        reference,
        projectType: "ai-system",
        budget: "50k-100k",
        timeline: "asap",
        attachment: { size: 5_000 },
      };
      expect(await renderBriefAcknowledgment(record)).toEqual(
        await renderEmail(BriefAcknowledgmentEmail({ record })),
      );
    }
    expect(formatBytes(5_000)).toBe("4.9 KB");
  });
});

describe("the confirmation, filled in", () => {
  const link = (page: string, token: string) =>
    `https://studio.example/newsletter/${page}?token=${encodeURIComponent(token)}`;
  const props = (
    email: string,
    topics: NewsletterConfirmationProps["topics"],
  ): NewsletterConfirmationProps => ({
    email,
    topics,
    confirmUrl: link("confirm", `${email}.c.${"x".repeat(email.length % 7)}+/=`),
    unsubscribeUrl: link("unsubscribe", `${email}.u`),
    validFor: "7 days",
  });

  it.each([
    ["a plain address", "ada@example.com"],
    ["another of the same length", "bob@example.org"],
    ["one with plus and dots", "first.last+news@mail.example.co.uk"],
    ["one with an apostrophe (rendered in full)", "o'brien@example.com"],
    ["one with an ampersand (rendered in full)", "a&b@example.com"],
    ["markup (rendered in full)", "o'brien+<script>alert(1)</script>@example.com"],
    ["a long one", `${"l".repeat(64)}@${"d".repeat(60)}.example`],
  ])("is the confirmation rendered, for %s", async (_name, email) => {
    for (const topics of [[], ["AI"], NEWSLETTER_TOPICS.slice(2, 5), [...NEWSLETTER_TOPICS]]) {
      const each = props(email, topics);
      expect(await renderNewsletterConfirmation(each)).toEqual(
        await renderEmail(NewsletterConfirmationEmail(each)),
      );
    }
  });
});

describe("emailTemplate", () => {
  function counting(view: (props: { name: string; note: string }) => string) {
    const calls: string[] = [];
    const component = (props: { name: string; note: string }) => {
      calls.push(props.name);
      return createElement("html", null, createElement("body", null, createElement("p", null, view(props))));
    };
    return { component, calls };
  }

  it("renders a shape once and fills it in for each plain value", async () => {
    const { component, calls } = counting(({ name, note }) => `Hello ${name}, ${note}`);
    const fill = emailTemplate(component, ["name"]);
    for (const name of ["ada", "bob", "eve"]) {
      expect(await fill({ name, note: "hi" })).toEqual(await renderEmail(component({ name, note: "hi" })));
    }
    // Once for the shape (with placeholders), and once per comparison above.
    expect(calls.filter((name) => !["ada", "bob", "eve"].includes(name))).toHaveLength(1);
    expect(calls.filter((name) => ["ada", "bob", "eve"].includes(name))).toHaveLength(3);
  });

  it("renders in full a value that is not plain, and a shape whose placeholder does not come out whole", async () => {
    const escaped = counting(({ name }) => `Hello ${name}`);
    const fillEscaped = emailTemplate(escaped.component, ["name"]);
    expect(await fillEscaped({ name: "<b>&", note: "" })).toEqual(
      await renderEmail(escaped.component({ name: "<b>&", note: "" })),
    );
    expect(escaped.calls).toEqual(["<b>&", "<b>&"]);

    const cut = counting(({ name }) => `Hello ${name.slice(0, 2)}`);
    const fillCut = emailTemplate(cut.component, ["name"]);
    expect(await fillCut({ name: "ada", note: "" })).toEqual(
      await renderEmail(cut.component({ name: "ada", note: "" })),
    );
    expect(cut.calls.filter((name) => name === "ada")).toHaveLength(2);
  });
});
