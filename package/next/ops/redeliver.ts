import { ApiError } from "@/lib/http/errors";
import { CHANNEL_NAMES, type ChannelName } from "@/lib/notify";
import { redeliverOne, stillFailing } from "@/lib/ops";
import { briefAction, readOpsFields } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";
import { getServices } from "@/lib/services";

/** `channel` from the body, when given: one of the channels' names. */
function channelField(value: string | undefined): ChannelName | undefined {
  if (value === undefined || value === "") return undefined;
  if ((CHANNEL_NAMES as readonly string[]).includes(value)) return value as ChannelName;
  throw new ApiError("validation_failed", undefined, {
    fields: { channel: `One of: ${CHANNEL_NAMES.join(", ")}.` },
  });
}

/**
 * POST /api/ops/briefs/<reference>/redeliver: the ops tool's `redeliver <reference>`, same code:
 * every failed channel. With `{ channel }` (JSON or a form field), that channel alone, whether
 * it failed ("Retry now") or was delivered ("Send again").
 */
export function POST(request: Request, { params }: { params: Promise<{ reference: string }> }) {
  return briefAction(request, params, getServices, async ({ services, actor }, brief) => {
    const channel = channelField((await readOpsFields(request)).channel);
    const result = await redeliverOne(services, brief, { actor, channel });
    // Nothing went out: the channel is not configured on this server, or its attempt is under way elsewhere.
    const nothingSent =
      Object.keys(result.attempted).length === 0 && (result.unavailable.length > 0 || result.error !== null);
    const status = nothingSent ? "not-sent" : stillFailing(result) ? "still-failing" : "redelivered";
    return { status, delivery: result.delivery, error: result.error };
  });
}

export const GET = postOnly(getServices);
