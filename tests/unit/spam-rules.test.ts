import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { spamVerdict } from "@/lib/briefs";
import { matchingDomain, matchingKeyword, spamByRules } from "@/lib/contact/spam-rules";
import type { Brief } from "@/lib/schemas/brief";

function brief(overrides: Partial<Brief> = {}): Brief {
  return {
    name: "Ada Lovelace",
    email: "ada@example.com",
    company: "Analytical Engines Ltd",
    role: "Founder",
    projectType: "ai-system",
    budget: "50k-100k",
    timeline: "3-6-months",
    description: "We need a system that computes Bernoulli numbers and explains its reasoning.",
    consent: true,
    ...overrides,
  };
}

function rules(env: { SPAM_KEYWORDS?: string; SPAM_EMAIL_DOMAINS?: string }) {
  const { spamRules } = parseConfig(env);
  if (spamRules === null) throw new Error("no rules");
  return spamRules;
}

describe("SPAM_KEYWORDS: whole words and phrases, any case, in name, company, role and description", () => {
  const cases: [string, string, Partial<Brief>, string | null][] = [
    ["a word", "casino", { description: "Our casino needs a new booking app, soon please." }, "casino"],
    ["in any case", "casino", { description: "THE CASINO wants an app" }, "casino"],
    ["keyword written in capitals", "CASINO", { description: "a casino" }, "CASINO"],
    ["a word that merely contains it", "ass", { description: "A class of students, a passage." }, null],
    ["the same word alone", "ass", { description: "what an ass" }, "ass"],
    ["a longer word that starts with it", "seo", { description: "Seoul office" }, null],
    ["a phrase", "seo services", { description: "We sell SEO services to studios." }, "seo services"],
    [
      "a phrase across a line break",
      "seo services",
      { description: "Top SEO\nservices here" },
      "seo services",
    ],
    ["a phrase's words apart", "seo services", { description: "SEO and other services" }, null],
    ["beside punctuation", "casino", { description: "Casino, poker (casino)." }, "casino"],
    ["after an apostrophe", "casino", { description: "l'casino" }, "casino"],
    ["glued to a digit", "casino", { description: "casino24 deals" }, null],
    ["joined by an underscore (not a letter or digit)", "casino", { description: "casino_deals" }, "casino"],
    ["a keyword ending in punctuation", "c++", { description: "Our c++ code base" }, "c++"],
    ["punctuation-only keyword inside a word", "$$$", { description: "earn$$$fast" }, "$$$"],
    ["regex characters taken literally", "a.b", { description: "axb" }, null],
    ["in the name", "viagra", { name: "Viagra Sales" }, "viagra"],
    ["in the company", "viagra", { company: "Cheap Viagra Ltd" }, "viagra"],
    ["in the role", "crypto", { role: "Crypto evangelist" }, "crypto"],
    ["not in the email address", "example", {}, null],
    ["another script, whole word", "казино", { description: "Лучшее казино онлайн" }, "казино"],
    ["another script, inside a word", "казино", { description: "Лучшиеказино онлайн" }, null],
    ["accented letters are letters", "cafe", { description: "Un cafetier, un caféine" }, null],
    ["an accented keyword", "café", { description: "The CAFÉ next door" }, "café"],
    ["decomposed accents match composed", "café", { description: "the cafe\u0301 next door" }, "café"],
    ["Japanese text", "カジノ", { description: "オンラインカジノの宣伝です" }, null],
    [
      "the first configured keyword that matches",
      "poker,casino",
      { description: "casino and poker" },
      "poker",
    ],
  ];
  it.each(cases)("%s (%j)", (_label, keywords, fields, expected) => {
    expect(matchingKeyword(rules({ SPAM_KEYWORDS: keywords }).keywords, brief(fields))).toBe(expected);
  });
});

describe("SPAM_KEYWORDS: matched after NFKC, case folding and removal of invisible characters", () => {
  const cases: [string, string, Partial<Brief>, string | null][] = [
    ["a soft hyphen inside", "casino", { description: "Best cas\u00adino in town" }, "casino"],
    ["a zero-width space inside", "casino", { description: "Best ca\u200bsino in town" }, "casino"],
    ["zero-width joiner and non-joiner", "casino", { name: "c\u200ca\u200dsino" }, "casino"],
    ["a word joiner", "casino", { company: "cas\u2060ino ltd" }, "casino"],
    ["a byte order mark", "casino", { role: "\ufeffcasino" }, "casino"],
    ["a variation selector", "casino", { description: "casi\ufe0fno" }, "casino"],
    ["a direction mark", "casino", { description: "casi\u200eno" }, "casino"],
    ["a bidi override", "casino", { description: "\u202ecasino\u202c" }, "casino"],
    ["fullwidth letters", "casino", { description: "ｃａｓｉｎｏ bonus" }, "casino"],
    ["fullwidth capitals", "casino", { description: "ＣＡＳＩＮＯ" }, "casino"],
    [
      "mathematical letters",
      "casino",
      { description: "\u{1d41c}\u{1d41a}\u{1d42c}\u{1d422}\u{1d427}\u{1d428}" },
      "casino",
    ],
    ["a ligature", "finance", { description: "ﬁnance offer" }, "finance"],
    ["sharp s folds to ss", "strasse", { description: "STRAßE" }, "strasse"],
    ["a keyword written with a soft hyphen", "cas\u00adino", { description: "casino" }, "cas\u00adino"],
    ["a fullwidth keyword", "ｃａｓｉｎｏ", { description: "Casino" }, "ｃａｓｉｎｏ"],
    ["still whole words only", "casino", { description: "ｃａｓｉｎｏ24" }, null],
    ["an invisible character does not join two words", "casino", { description: "my\u200bcasino" }, null],
  ];
  it.each(cases)("%s (%j)", (_label, keywords, fields, expected) => {
    expect(matchingKeyword(rules({ SPAM_KEYWORDS: keywords }).keywords, brief(fields))).toBe(expected);
  });

  it("refuses a keyword made only of invisible characters, which would match every brief", () => {
    expect(() => parseConfig({ SPAM_KEYWORDS: "casino,\u200b\u00ad" })).toThrow(/SPAM_KEYWORDS/);
  });
});

describe("SPAM_EMAIL_DOMAINS: the sender's domain or a subdomain, IDN in one form", () => {
  const cases: [string, string, string, string | null][] = [
    ["the domain", "example.com", "a@example.com", "example.com"],
    ["in capitals", "example.com", "A@EXAMPLE.COM", "example.com"],
    ["configured in capitals", "EXAMPLE.com", "a@example.com", "EXAMPLE.com"],
    ["a subdomain", "example.com", "a@mail.example.com", "example.com"],
    ["a deeper subdomain", "example.com", "a@x.y.example.com", "example.com"],
    ["merely the same ending", "example.com", "a@notexample.com", null],
    ["a parent of the domain", "mail.example.com", "a@example.com", null],
    ["another domain", "example.com", "a@example.org", null],
    ["IDN configured, IDN sender", "münchen.example", "a@münchen.example", "münchen.example"],
    ["IDN configured, punycode sender", "münchen.example", "a@xn--mnchen-3ya.example", "münchen.example"],
    [
      "punycode configured, IDN sender",
      "xn--mnchen-3ya.example",
      "a@MÜNCHEN.example",
      "xn--mnchen-3ya.example",
    ],
    ["IDN subdomain", "münchen.example", "a@post.münchen.example", "münchen.example"],
    ["IDN that merely ends the same", "münchen.example", "a@xmünchen.example", null],
    ["a trailing dot on the sender", "example.com", "a@example.com.", "example.com"],
    ["a whole top-level domain", "ru", "a@shop.ru", "ru"],
    ["the second of a list", "spam.example,example.com", "a@example.com", "example.com"],
    ["a soft hyphen in the sender's domain", "spam.example", "a@sp\u00adam.example", "spam.example"],
    ["a zero-width space in the sender's domain", "spam.example", "a@spam\u200b.example", "spam.example"],
    ["a bidi control in the sender's domain", "spam.example", "a@sp\u202eam.example", "spam.example"],
    ["fullwidth sender", "spam.example", "a@ｓｐａｍ.example", "spam.example"],
    ["configured with a soft hyphen", "sp\u00adam.example", "a@spam.example", "sp\u00adam.example"],
  ];
  it.each(cases)("%s (%s, %s)", (_label, domains, email, expected) => {
    expect(matchingDomain(rules({ SPAM_EMAIL_DOMAINS: domains }).domains, email)).toBe(expected);
  });
});

describe("spamByRules", () => {
  it("is null with no rules, and names the rule that matched", () => {
    expect(spamByRules(null, brief())).toBeNull();
    const both = rules({ SPAM_KEYWORDS: "bernoulli", SPAM_EMAIL_DOMAINS: "example.com" });
    expect(spamByRules(both, brief())).toEqual({ reason: "keyword", match: "bernoulli" });
    expect(spamByRules(both, brief({ description: "Thirty characters of honest text." }))).toEqual({
      reason: "domain",
      match: "example.com",
    });
    expect(spamByRules(rules({ SPAM_KEYWORDS: "casino" }), brief())).toBeNull();
  });

  it("reads old spam entries (no `spam` field) as caught by the honeypot, briefs as not spam", () => {
    expect(spamVerdict("spam", {})).toEqual({ reason: "honeypot" });
    expect(spamVerdict("spam", { spam: { reason: "domain", match: "x.example" } })).toEqual({
      reason: "domain",
      match: "x.example",
    });
    expect(spamVerdict("briefs", { spam: { reason: "keyword", match: "x" } })).toBeNull();
  });
});

describe("spam rules configuration", () => {
  it("is off when neither is set, or set to nothing", () => {
    expect(parseConfig({}).spamRules).toBeNull();
    expect(parseConfig({ SPAM_KEYWORDS: " , ", SPAM_EMAIL_DOMAINS: "" }).spamRules).toBeNull();
  });

  it("keeps keywords and domains as written, domains also in ASCII", () => {
    expect(
      parseConfig({ SPAM_KEYWORDS: " casino , seo  services ", SPAM_EMAIL_DOMAINS: "München.example" })
        .spamRules,
    ).toEqual({
      keywords: ["casino", "seo  services"],
      domains: [{ written: "München.example", ascii: "xn--mnchen-3ya.example" }],
    });
  });

  it.each(["a@b.example", "exa mple.com", "*.example.com", "https://example.com", "-x.example", "a..b"])(
    "refuses the domain %j, naming SPAM_EMAIL_DOMAINS",
    (domain) => {
      expect(() => parseConfig({ SPAM_EMAIL_DOMAINS: `ok.example,${domain}` })).toThrow(/SPAM_EMAIL_DOMAINS/);
    },
  );
});
