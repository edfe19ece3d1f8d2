import { attachmentFileName } from "./message";
import { attributionLines } from "./attribution";
import { formatBytes } from "../format";
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
 */
export function escapeSlack(text: string): string {
  return text
    .replace(/[&<>]/g, (character) => SLACK_ESCAPES[character] ?? character)
    .replace(/@(?=(?:everyone|here|channel)\b)/gi, "@\u2060");
}

/** The first `length` code points of `text`, with `…` when it was longer. */
function opening(text: string, length: number): string {
  const characters = Array.from(text);
  return characters.length > length ? `${characters.slice(0, length).join("")}…` : text;
}

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

/**
 * The message for one brief. `inboxUrl` is the brief's page in the inbox on the web, or `null`
 * while that is off. Every value a visitor typed goes through `escapeSlack`; labels, the
 * reference and the link are ours.
 */
export function slackMessage(record: BriefRecord, inboxUrl: string | null): SlackMessage {
  const { attachment } = record;
  const summary: [string, string][] = [
    ["Name", escapeSlack(record.name)],
    ["Email", escapeSlack(record.email)],
    ["Company", record.company === null ? "—" : escapeSlack(record.company)],
    ["Project type", PROJECT_TYPES[record.projectType] ?? escapeSlack(record.projectType)],
    ["Budget", BUDGETS[record.budget] ?? escapeSlack(record.budget)],
    ["Timeline", TIMELINES[record.timeline] ?? escapeSlack(record.timeline)],
  ];
  const title = `New brief ${record.reference} from ${escapeSlack(record.name)}`;
  const description = escapeSlack(opening(record.description, SLACK_DESCRIPTION_LENGTH));
  const attached = attachment
    ? `Attachment: ${escapeSlack(attachmentFileName(attachment))} (${formatBytes(attachment.size)})`
    : "No attachment";
  const origin = attributionLines(record).map(([label, value]) => `${label}: ${escapeSlack(value)}`);
  const link = inboxUrl === null ? null : `<${inboxUrl}|Open ${record.reference} in the inbox>`;

  const blocks: Block[] = [
    { type: "section", text: mrkdwn(`*${title}*`) },
    { type: "section", fields: summary.map(([label, value]) => mrkdwn(`*${label}*\n${value}`)) },
    { type: "section", text: mrkdwn(`*Description*\n${description}`) },
    { type: "context", elements: [mrkdwn(attached)] },
  ];
  // One element per value: each stays within Slack's length per element however much is escaped.
  if (origin.length > 0) blocks.push({ type: "context", elements: origin.map((line) => mrkdwn(line)) });
  if (link !== null) blocks.push({ type: "section", text: mrkdwn(link) });

  const text = [
    title,
    ...summary.map(([label, value]) => `${label}: ${value}`),
    "",
    description,
    "",
    attached,
    ...(origin.length > 0 ? ["Came from:", ...origin.map((line) => `  ${line}`)] : []),
    ...(link === null ? [] : [link]),
  ].join("\n");
  return { text, blocks };
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
