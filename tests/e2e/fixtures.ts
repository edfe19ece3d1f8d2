import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Page } from "@playwright/test";
import { findBriefFolder } from "../support/inbox";
import { E2E_INBOX } from "./env";

/**
 * Every test browses from its own client address (an IPv6 /64 from the documentation range), so
 * rate limits never leak between tests; the 429 test exhausts its own budget on purpose.
 */
export const test = base.extend<{ clientAddress: string }>({
  clientAddress: async ({}, provide, testInfo) => {
    const digest = createHash("sha256").update(`${testInfo.testId}:${testInfo.retry}`).digest("hex");
    await provide(`2001:db8:${digest.slice(0, 4)}:${digest.slice(4, 8)}::1`);
  },
  extraHTTPHeaders: async ({ clientAddress }, provide) => {
    await provide({ "x-forwarded-for": clientAddress });
  },
});

export { expect };

export interface BriefValues {
  name: string;
  email: string;
  description: string;
}

export const VALID: BriefValues = {
  name: "Grace Hopper",
  email: "grace@example.com",
  description: "A compiler for business programs, with documentation your analysts can read.",
};

/** Fills every required field the way a visitor would, through the labels. */
export async function fillBrief(page: Page, values: BriefValues = VALID): Promise<void> {
  const form = page.locator("#contact");
  await form.getByLabel("Name").fill(values.name);
  await form.getByLabel("Email").fill(values.email);
  await form.getByLabel("Company").fill("Remington Rand");
  await form.getByLabel("Project type").selectOption({ label: "Web application" });
  await form.getByLabel("Budget").selectOption({ label: "$50k-$100k" });
  await form.getByLabel("Timeline").selectOption({ label: "3-6 months" });
  await form.getByLabel("About the project").fill(values.description);
  await form.getByLabel("You may contact me about this brief.").check();
}

export async function readStoredBrief(
  reference: string,
): Promise<Record<string, unknown> & { folder: string }> {
  const folder = await findBriefFolder(E2E_INBOX, reference);
  if (!folder) throw new Error(`brief ${reference} is not in the inbox`);
  const brief = JSON.parse(await readFile(join(E2E_INBOX, folder, "brief.json"), "utf8")) as Record<
    string,
    unknown
  >;
  return { ...brief, folder };
}

/** Sends five valid briefs from the test's own address: its contact budget (5 per 10 minutes) is then spent. */
export async function spendContactBudget(page: Page): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const response = await page.request.post("/api/contact", {
      multipart: {
        name: "Rate Limit",
        email: "limit@example.com",
        projectType: "other",
        budget: "undecided",
        timeline: "exploring",
        description: "Filling the rate-limit budget for this test's client address.",
        consent: "on",
      },
    });
    expect(response.status()).toBe(200);
  }
}

/** The site's own scripts (`/_next/static/`) the page loads from now on, by address, with their text. */
export function recordScripts(page: Page): Map<string, Promise<string>> {
  const scripts = new Map<string, Promise<string>>();
  page.on("response", (response) => {
    if (response.request().resourceType() === "script" && response.url().includes("/_next/static/")) {
      scripts.set(response.url(), response.text());
    }
  });
  return scripts;
}

/** Which of `markers` (text only some code carries) the recorded scripts hold, as "marker in address". */
export async function scriptsCarrying(
  scripts: Map<string, Promise<string>>,
  markers: string[],
): Promise<string[]> {
  const found: string[] = [];
  for (const [url, text] of scripts) {
    const body = await text;
    for (const marker of markers) if (body.includes(marker)) found.push(`${marker} in ${url}`);
  }
  return found;
}

/** axe finds nothing on the page as it is now; `state` names it in the failure, with each rule's elements. */
export async function expectNoViolations(page: Page, state: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const summary = results.violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target).join(", ")})`,
  );
  expect(summary, `axe violations with ${state}`).toEqual([]);
}
