import { asciiDomain, type SpamRules } from "../config";
import type { SpamVerdict } from "../briefs";
import { comparableText } from "../format";
import type { Brief } from "../schemas/brief";

/**
 * The spam rules beyond the honeypot (`SPAM_KEYWORDS`, `SPAM_EMAIL_DOMAINS`): which one a valid
 * brief breaks, if any. Pure: the contact route stores a match under `spam/` like a honeypot catch.
 */

/** The fields keywords are looked for in: what the visitor wrote, not the address or the options. */
const SEARCHED_FIELDS = ["name", "company", "role", "description"] as const;

/** A word character in any script: letters (with their combining marks) and digits. */
const WORD_CHARACTER = "[\\p{L}\\p{M}\\p{N}]";
const STARTS_WITH_WORD_CHARACTER = new RegExp(`^${WORD_CHARACTER}`, "u");
const ENDS_WITH_WORD_CHARACTER = new RegExp(`${WORD_CHARACTER}$`, "u");

/**
 * A keyword as a pattern that matches it only as whole words: its edges, where they are letters
 * or digits, must not touch another letter or digit ("ass" is not in "class", "c++" is in "c++,").
 * Spaces inside a phrase match any run of white space, so a line break does not hide it. The
 * keyword is taken in its `comparableText` form, as the text it is looked for in is.
 */
export function keywordPattern(keyword: string): RegExp {
  const phrase = comparableText(keyword).trim();
  const body = phrase
    .split(/\s+/)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
    .join("\\s+");
  const before = STARTS_WITH_WORD_CHARACTER.test(phrase) ? `(?<!${WORD_CHARACTER})` : "";
  const after = ENDS_WITH_WORD_CHARACTER.test(phrase) ? `(?!${WORD_CHARACTER})` : "";
  return new RegExp(`${before}${body}${after}`, "iu");
}

/**
 * The first keyword (in the configured order, as written) found in the brief's text, or `null`.
 * Both are compared in their `comparableText` form: a soft hyphen, a zero-width space or
 * fullwidth letters do not hide a keyword.
 */
export function matchingKeyword(keywords: readonly string[], brief: Brief): string | null {
  const texts = SEARCHED_FIELDS.map((field) => comparableText(brief[field] ?? ""));
  return (
    keywords.find((keyword) => {
      const pattern = keywordPattern(keyword);
      return texts.some((text) => pattern.test(text));
    }) ?? null
  );
}

/**
 * The configured domain (as written) that the sender's address is at, or under: `spam.example`
 * catches `a@spam.example` and `a@mail.spam.example`, never `a@notspam.example`. Both sides are
 * compared in one form (`asciiDomain` of `comparableText`), so an internationalised name matches
 * however it is written, and characters nobody sees do not hide it.
 */
export function matchingDomain(domains: SpamRules["domains"], email: string): string | null {
  const sender = asciiDomain(comparableText(email.slice(email.lastIndexOf("@") + 1)));
  if (sender === "") return null;
  const found = domains.find(({ ascii }) => sender === ascii || sender.endsWith(`.${ascii}`));
  return found?.written ?? null;
}

/** Why a valid brief is spam by the rules, or `null` when it passes them (or there are none). */
export function spamByRules(rules: SpamRules | null, brief: Brief): SpamVerdict | null {
  if (rules === null) return null;
  const keyword = matchingKeyword(rules.keywords, brief);
  if (keyword !== null) return { reason: "keyword", match: keyword };
  const domain = matchingDomain(rules.domains, brief.email);
  if (domain !== null) return { reason: "domain", match: domain };
  return null;
}
