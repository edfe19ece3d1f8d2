import { comparableText } from "../format";
import { PROJECT_TYPES, type ProjectType } from "../schemas/brief";
import type { ConfigReader } from "./reader";
import type { Config, EmailRoutes, SpamRules } from "./types";
import { asciiDomain, httpUrl, isEmailAddress, list } from "./values";

/**
 * Part 4's lead settings, each off until set: the Slack channel (`SLACK_WEBHOOK_URL`), the ops
 * email routed by project type (`EMAIL_ROUTES`) and the spam rules beyond the honeypot
 * (`SPAM_KEYWORDS`, `SPAM_EMAIL_DOMAINS`).
 */

/** `SLACK_WEBHOOK_URL`: the Slack (or Discord, at its URL + `/slack`) channel, or `null`. */
export function parseSlack({ raw, read }: ConfigReader): Config["slack"] {
  if (!raw.SLACK_WEBHOOK_URL) return null;
  const url = read(raw.SLACK_WEBHOOK_URL, httpUrl("SLACK_WEBHOOK_URL"), null);
  return url && { url: url.href };
}

const EMAIL_ROUTES_FORM = "<projectType>=<address>[,<address>...];... (e.g. ai-system=ml@studio.example)";

/**
 * `EMAIL_ROUTES`: the project types whose ops email goes elsewhere than `EMAIL_TO`. Every entry
 * must name a known project type once, with at least one valid address: a route that could
 * never match, or mail that could never arrive, stops the start rather than send briefs astray.
 */
export function parseEmailRoutes({ raw, problems, warnings }: ConfigReader): EmailRoutes {
  const routes: Partial<Record<ProjectType, readonly string[]>> = {};
  if (!raw.EMAIL_ROUTES) return routes;
  const refuse = (why: string) => problems.push(`EMAIL_ROUTES must be ${EMAIL_ROUTES_FORM}; ${why}`);
  for (const entry of raw.EMAIL_ROUTES.split(";").map((part) => part.trim())) {
    if (entry === "") continue;
    const equals = entry.indexOf("=");
    if (equals === -1) {
      refuse(`"${entry}" has no =`);
      continue;
    }
    const projectType = entry.slice(0, equals).trim();
    const addresses = list(entry.slice(equals + 1));
    const invalid = addresses.filter((address) => !isEmailAddress(address));
    if (!Object.hasOwn(PROJECT_TYPES, projectType)) {
      refuse(`"${projectType}" is not a project type (${Object.keys(PROJECT_TYPES).join(", ")})`);
    } else if (Object.hasOwn(routes, projectType)) {
      refuse(`${projectType} is routed twice`);
    } else if (addresses.length === 0) {
      refuse(`${projectType} has no address`);
    } else if (invalid.length > 0) {
      refuse(`not an address: ${invalid.join(", ")}`);
    } else {
      routes[projectType as ProjectType] = addresses;
    }
  }
  if (Object.keys(routes).length > 0 && !(raw.SMTP_URL && raw.EMAIL_FROM && raw.EMAIL_TO)) {
    warnings.push("EMAIL_ROUTES is set but the email channel is not configured: nothing is routed");
  }
  return routes;
}

// C0 and C1 controls: a keyword is one line of text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// What domainToASCII leaves of a host name: labels of letters, digits and hyphens.
const ASCII_DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/**
 * `SPAM_KEYWORDS` and `SPAM_EMAIL_DOMAINS` (both comma-separated). Domains are kept as written
 * (ops read them in `spam.match`) beside their ASCII form, which is what is compared.
 */
export function parseSpamRules({ raw, problems }: ConfigReader): SpamRules | null {
  const keywords = raw.SPAM_KEYWORDS ? list(raw.SPAM_KEYWORDS) : [];
  const withControls = keywords.filter((keyword) => CONTROL.test(keyword));
  if (withControls.length > 0) {
    problems.push("SPAM_KEYWORDS must be comma-separated words or phrases, without control characters");
  }
  // Matched in their comparable form: one of nothing but invisible characters would match every brief.
  if (keywords.some((keyword) => comparableText(keyword).trim() === "")) {
    problems.push("SPAM_KEYWORDS must not hold a keyword made only of invisible characters");
  }
  const domains: SpamRules["domains"][number][] = [];
  for (const written of raw.SPAM_EMAIL_DOMAINS ? list(raw.SPAM_EMAIL_DOMAINS) : []) {
    const ascii = asciiDomain(comparableText(written));
    if (ASCII_DOMAIN.test(ascii)) domains.push({ written, ascii });
    else {
      problems.push(
        `SPAM_EMAIL_DOMAINS must be comma-separated domain names (e.g. spam.example, münchen.example); not one: "${written}"`,
      );
    }
  }
  if (keywords.length === 0 && domains.length === 0) return null;
  return { keywords, domains };
}
