import { attachmentFileName } from "./message";
import { attributionLines } from "./attribution";
import { formatBytes, visibleText } from "../format";
import type { BriefRecord } from "../briefs";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "../schemas/brief";
import type { BriefNotice, Channel } from "./types";
import { postWebhook } from "./webhook";

/** How much of the description the message carries, in code points. */
export const SLACK_DESCRIPTION_LENGTH = 500;

const SLACK_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/**
 * Visitor text as Slack shows it and never parses: `&`, `<` and `>` escaped, so no `<!channel>`
 * mention, `<@U123>` or `<https://evil.example|your invoice>` link can be typed into a brief.
 * Discord (which takes the same message at its URL + `/slack`) also pings on a bare `@everyone`
 * or `@here`: a word joiner after the `@` keeps them from doing so without changing what is read.
 * Bidirectional controls are shown as code points (`visibleText`), so the message reads as typed.
 */
export function escapeSlack(text: string): string {
  return visibleText(text)
    .replace(/[&<>]/g, (character) => SLACK_ESCAPES[character] ?? character)
    .replace(/@(?=(?:everyone|here|channel)\b)/gi, "@\u2060");
}

/** The first `length` code points of `text`, with `…` when it was longer. */
function opening(text: string, length: number): string {
  const characters = Array.from(text);
  return characters.length > length ? `${characters.slice(0, length).join("")}…` : text;
}

/**
 * Slack's documented limits for what this message uses (Block Kit: a section's text 3000
 * characters, its fields 10 of 2000 each, a context's elements 10, a message's blocks 50), and
 * Discord's for `text`: its Slack-compatible endpoint refuses a message over 2000 characters.
 * Lengths are UTF-16 units, which is never less than what either service counts.
 */
export const SLACK_LIMITS = {
  text: 2000,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  contextElements: 10,
  blocks: 50,
} as const;

/**
 * `text` escaped for Slack (`escapeSlack`) in at most `max` UTF-16 units: when the escaped whole
 * is longer, the longest opening whose escaped form fits with a `…` after it. The cut is made in
 * the visitor's text, never in the escaped one, so no entity (`&amp;`) is ever split.
 */
export function escapeWithin(text: string, max: number): string {
  const whole = escapeSlack(text);
  if (whole.length <= max) return whole;
  const characters = Array.from(text);
  const fits = (count: number) => escapeSlack(characters.slice(0, count).join("")).length + 1 <= max;
  // The escaped length grows with the opening's, so the longest that fits is found by halving.
  let low = 0;
  let high = characters.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return max < 1 ? "" : `${escapeSlack(characters.slice(0, low).join(""))}…`;
}

/**
 * The most of one visitor value a line of `text` carries (escaped), so the fixed lines leave the
 * description room within `SLACK_LIMITS.text` whatever was typed; blocks have more room each.
 */
const TEXT_VALUE = 160;
const TEXT_ORIGIN_VALUE = 100;
/** The most of one visitor value a field or context element carries, its label aside. */
const BLOCK_VALUE = 1500;

type TextObject = { type: "mrkdwn"; text: string };
type Block =
  | { type: "section"; text: TextObject }
  | { type: "section"; fields: TextObject[] }
  | { type: "context"; elements: TextObject[] };

/** The channel's JSON body: `text` (the whole message: Slack's notification text, and all Discord shows) and `blocks`. */
export interface SlackMessage {
  text: string;
  blocks: Block[];
}

const mrkdwn = (text: string): TextObject => ({ type: "mrkdwn", text });

/** A brief's values with their labels, each escaped within `max`: the message's summary. */
function summaryOf(record: BriefRecord, max: number): [string, string][] {
  return [
    ["Name", escapeWithin(record.name, max)],
    ["Email", escapeWithin(record.email, max)],
    ["Company", record.company === null ? "—" : escapeWithin(record.company, max)],
    ["Project type", PROJECT_TYPES[record.projectType] ?? escapeWithin(record.projectType, max)],
    ["Budget", BUDGETS[record.budget] ?? escapeWithin(record.budget, max)],
    ["Timeline", TIMELINES[record.timeline] ?? escapeWithin(record.timeline, max)],
  ];
}

function attachedLine(record: BriefRecord, max: number): string {
  const { attachment } = record;
  return attachment
    ? `Attachment: ${escapeWithin(attachmentFileName(attachment), max)} (${formatBytes(attachment.size)})`
    : "No attachment";
}

function originLines(record: BriefRecord, max: number): string[] {
  return attributionLines(record).map(([label, value]) => `${label}: ${escapeWithin(value, max)}`);
}

/**
 * The message for one brief. `inboxUrl` is the brief's page in the inbox on the web, or `null`
 * while that is off. Every value a visitor typed goes through `escapeSlack`, cut with `…` where
 * Slack's or Discord's limits (`SLACK_LIMITS`) need it; labels, the reference and the link are ours.
 */
export function slackMessage(record: BriefRecord, inboxUrl: string | null): SlackMessage {
  const link = inboxUrl === null ? null : `<${inboxUrl}|Open ${record.reference} in the inbox>`;
  const described = opening(record.description, SLACK_DESCRIPTION_LENGTH);
  const heading = (max: number) => `New brief ${record.reference} from ${escapeWithin(record.name, max)}`;

  const blockSummary = summaryOf(record, BLOCK_VALUE);
  const blockOrigin = originLines(record, BLOCK_VALUE);
  const blocks: Block[] = [
    { type: "section", text: mrkdwn(`*${heading(BLOCK_VALUE)}*`) },
    { type: "section", fields: blockSummary.map(([label, value]) => mrkdwn(`*${label}*\n${value}`)) },
    {
      type: "section",
      text: mrkdwn(
        `*Description*\n${escapeWithin(described, SLACK_LIMITS.sectionText - "*Description*\n".length)}`,
      ),
    },
    { type: "context", elements: [mrkdwn(attachedLine(record, BLOCK_VALUE))] },
  ];
  // One element per value: each stays within Slack's length per element however much is escaped.
  if (blockOrigin.length > 0)
    blocks.push({ type: "context", elements: blockOrigin.map((line) => mrkdwn(line)) });
  if (link !== null) blocks.push({ type: "section", text: mrkdwn(link) });

  // `text` holds the whole message in Discord's 2000 characters: every other line is bounded
  // (TEXT_VALUE per visitor value), and the description gets the room they leave.
  const origin = originLines(record, TEXT_ORIGIN_VALUE);
  const before = [
    heading(TEXT_VALUE),
    ...summaryOf(record, TEXT_VALUE).map(([label, value]) => `${label}: ${value}`),
    "",
  ];
  const after = [
    "",
    attachedLine(record, TEXT_VALUE),
    ...(origin.length > 0 ? ["Came from:", ...origin.map((line) => `  ${line}`)] : []),
    ...(link === null ? [] : [link]),
  ];
  const room = SLACK_LIMITS.text - [...before, ...after].join("\n").length - 1;
  const text = [...before, escapeWithin(described, Math.max(0, room)), ...after].join("\n");
  // Only a `SITE_URL` of hundreds of characters leaves no room at all: then the whole is cut.
  return {
    text: text.length <= SLACK_LIMITS.text ? text : `${text.slice(0, SLACK_LIMITS.text - 1)}…`,
    blocks,
  };
}

/**
 * Posts each brief to `SLACK_WEBHOOK_URL` (a Slack incoming webhook, or Discord's at its URL +
 * `/slack`) through the webhook channel's `postWebhook`, unsigned: redirects, errors and the
 * status are handled as for the webhook. A 2xx answer is success.
 */
export class SlackChannel implements Channel {
  readonly name = "slack";

  /** `inboxOrigin`: `SITE_URL`'s origin while the inbox on the web is on (each message links its brief), else `null`. */
  constructor(
    private readonly url: string,
    private readonly inboxOrigin: string | null,
  ) {}

  async deliver(notice: BriefNotice, signal: AbortSignal): Promise<number> {
    const { reference } = notice.record;
    const inboxUrl = this.inboxOrigin === null ? null : `${this.inboxOrigin}/inbox/${reference}`;
    const body = JSON.stringify(slackMessage(notice.record, inboxUrl));
    return postWebhook(this.url, null, `msg_${reference}`, body, signal);
  }
}
