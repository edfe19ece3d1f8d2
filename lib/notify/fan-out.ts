import { withTimeout } from "../timeout";
import { classifyFailure } from "./failure";
import type { ObjectStore } from "../store";
import type { AttachmentRecord } from "../briefs/record";
import {
  CHANNEL_NAMES,
  type BriefNotice,
  type Channel,
  type ChannelName,
  type ChannelOutcomes,
  type DeliveryOutcome,
  type NoticeAttachment,
} from "./types";

/** A stored brief's attachment for the channels: its bytes streamed from the store when sent. */
export function storedAttachment(
  store: ObjectStore,
  folder: string,
  record: AttachmentRecord,
): NoticeAttachment {
  const path = `${folder}/${record.filename}`;
  return {
    record,
    async open(signal) {
      const opened = await store.getStream(path, { signal });
      if (opened === null) throw new Error(`${path} is missing from the inbox`);
      return opened.body;
    },
  };
}

/**
 * Tells every channel about a stored brief at once, each bounded by `timeoutMs`: a channel that
 * has not succeeded by then is aborted and counted as failed. Never rejects.
 */
export async function fanOut(
  channels: readonly Channel[],
  notice: BriefNotice,
  timeoutMs: number,
): Promise<ChannelOutcomes> {
  const outcomes = await Promise.all(
    channels.map(
      async (channel) => [channel.name, await attemptChannel(channel, notice, timeoutMs)] as const,
    ),
  );
  return Object.fromEntries(outcomes);
}

/** The channels that succeeded, in the contract's order. */
export function forwardedChannels(outcomes: ChannelOutcomes): ChannelName[] {
  return CHANNEL_NAMES.filter((name) => outcomes[name]?.ok === true);
}

/** One channel's attempt, bounded by `timeoutMs`: how it went, timed and, on failure, classified. Never rejects. */
export async function attemptChannel(
  channel: Channel,
  notice: BriefNotice,
  timeoutMs: number,
): Promise<DeliveryOutcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const status = await withTimeout(timeoutMs, (signal) => channel.deliver(notice, signal));
    return { ok: true, at: new Date().toISOString(), ms: ms(), ...(status === undefined ? {} : { status }) };
  } catch (error) {
    const reason = describeFailure(error);
    console.warn(`[notify] ${channel.name} failed for brief ${notice.record.reference}: ${reason}`);
    return {
      ok: false,
      at: new Date().toISOString(),
      ms: ms(),
      error: reason,
      failure: classifyFailure(error),
    };
  }
}

/** One line for ops: the error's message and those of its causes (`fetch failed: connect ECONNREFUSED ...`). */
export function describeFailure(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && parts.length < 4) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !parts.includes(message)) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return (parts.join(": ") || "unknown error").replace(/\s+/g, " ").slice(0, 500);
}
