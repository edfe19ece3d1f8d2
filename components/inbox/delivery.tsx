import Link from "next/link";
import type { AcknowledgmentDelivery, ChannelDelivery, Delivery } from "@/lib/briefs";
import { CHANNEL_NAMES, type ChannelName } from "@/lib/notify";
import { acknowledgmentResult } from "@/lib/ops";
import { PostButton } from "./forms";
import { focusRing } from "./shell";
import { LocalTime } from "./time";

/**
 * A brief's notifications on its page: one row per channel with what happened and what can be
 * done about it. A failed channel offers "Retry now" (an attempt at once); a delivered one offers
 * "Send again", which first asks on the page itself (a link to a confirm step, so it works by
 * keyboard and without JavaScript, and nothing is sent twice by a slip). Each row tells the
 * channel's state (delivered, retrying with its next attempt, failed) and folds its attempt log.
 */

const actionLink = `inline-block rounded border border-slate-300 bg-white px-2.5 py-1 text-sm font-medium text-ink hover:bg-slate-50 ${focusRing}`;

/** How many attempts, in words. */
function attemptsText(count: number): string {
  return `${count} ${count === 1 ? "attempt" : "attempts"}`;
}

/** The channel, its state and its time, in words. */
function ChannelOutcome({
  name,
  outcome,
}: {
  name: ChannelName | "acknowledgment";
  outcome: ChannelDelivery;
}) {
  const label = name === "acknowledgment" ? "Acknowledgment to the sender" : name;
  return (
    <span>
      <span className="font-medium">{label}</span>{" "}
      {outcome.state === "delivered" ? (
        <span className="text-success">delivered</span>
      ) : outcome.state === "retrying" ? (
        <span className="text-warning">
          retrying
          {outcome.nextAttemptAt ? (
            <>
              {" "}
              (next attempt <LocalTime iso={outcome.nextAttemptAt} seconds />)
            </>
          ) : null}
          : {outcome.error ?? "no reason recorded"}
        </span>
      ) : (
        <span className="text-danger">
          failed after {attemptsText(outcome.attempts)}: {outcome.error ?? "no reason recorded"}
        </span>
      )}{" "}
      <span className="text-muted">
        (<LocalTime iso={outcome.at} seconds />)
      </span>
    </span>
  );
}

/** The channel's attempts, newest first, folded: when, how it went, how long, what the other end answered. */
function AttemptLog({ outcome }: { outcome: ChannelDelivery }) {
  if (outcome.log.length === 0) return null;
  const entries = [...outcome.log].reverse();
  return (
    <details className="w-full text-xs">
      <summary className={`cursor-pointer text-muted ${focusRing}`}>
        {attemptsText(outcome.attempts)}
        {outcome.attempts > outcome.log.length ? ` (the last ${outcome.log.length} kept)` : ""}
      </summary>
      <ol className="mt-1 space-y-0.5">
        {entries.map((entry, index) => (
          <li key={`${entry.at}-${index}`} className="flex flex-wrap gap-x-2">
            <LocalTime iso={entry.at} seconds />
            <span className={entry.ok ? "text-success" : "text-danger"}>
              {entry.ok ? "delivered" : "failed"}
            </span>
            <span className="text-muted">{entry.ms} ms</span>
            {entry.status !== undefined ? <span className="text-muted">status {entry.status}</span> : null}
            {entry.error ? <span className="break-words">{entry.error}</span> : null}
          </li>
        ))}
      </ol>
    </details>
  );
}

function ChannelRow({
  name,
  outcome,
  act,
  againHref,
}: {
  name: ChannelName;
  outcome: ChannelDelivery;
  act: (action: string) => string;
  againHref: string;
}) {
  return (
    <li className="flex flex-wrap items-center justify-between gap-2 py-1.5">
      <ChannelOutcome name={name} outcome={outcome} />
      {outcome.state === "delivered" ? (
        <Link href={againHref} className={actionLink}>
          Send again<span className="sr-only"> to {name}</span>
        </Link>
      ) : (
        <PostButton action={act("redeliver")} fields={{ channel: name }} tone="primary">
          Retry now<span className="sr-only"> ({name})</span>
        </PostButton>
      )}
      <AttemptLog outcome={outcome} />
    </li>
  );
}

/** The acknowledgment to the sender (`CONTACT_ACKNOWLEDGE`): not a channel, listed after them. */
function AcknowledgmentItem({ outcome }: { outcome: AcknowledgmentDelivery }) {
  const { result, reason } = acknowledgmentResult(outcome);
  const tone = {
    sent: "text-success",
    suppressed: "text-muted",
    retrying: "text-warning",
    failed: "text-danger",
  }[result];
  return (
    <li className="flex flex-wrap items-center gap-x-1 py-1.5">
      <span className="font-medium">Acknowledgment to the sender</span>{" "}
      <span className={tone}>
        {result}
        {reason === null ? null : `: ${reason}`}
      </span>{" "}
      <span className="text-muted">
        (<LocalTime iso={outcome.at} seconds />)
      </span>
      <AttemptLog outcome={outcome} />
    </li>
  );
}

/** The confirm step of "Send again": what it does, then the button that does it, or Cancel. */
function SendAgainConfirm({
  name,
  outcome,
  act,
  cancelHref,
}: {
  name: ChannelName;
  outcome: ChannelDelivery;
  act: (action: string) => string;
  cancelHref: string;
}) {
  return (
    <div
      id="send-again"
      role="group"
      aria-labelledby="send-again-title"
      className="mt-3 rounded border border-amber-300 bg-amber-50 p-3 text-sm"
    >
      <p id="send-again-title" className="font-medium text-ink">
        Send this brief to {name} again?
      </p>
      <p className="mt-1 text-ink">
        It was delivered (<LocalTime iso={outcome.at} />
        ): whoever reads {name} gets it a second time.
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <PostButton action={act("redeliver")} fields={{ channel: name }} tone="primary" autoFocus>
          Yes, send to {name} again
        </PostButton>
        <Link href={cancelHref} className={actionLink}>
          Cancel
        </Link>
      </div>
    </div>
  );
}

/**
 * The Notifications section's content. `pageHref(again)` is this page's address with the list's
 * query kept, asking (or no longer asking) to confirm sending `again` to a delivered channel.
 */
export function DeliveryDetails({
  delivery,
  act,
  again,
  pageHref,
}: {
  delivery: Delivery | null;
  act: (action: string) => string;
  again: string | null;
  pageHref: (again: ChannelName | null) => string;
}) {
  if (delivery === null) {
    return (
      <>
        <p className="text-sm text-muted">
          Pending: no outcome recorded (the notifications never finished, or are still running).
        </p>
        <div className="mt-3">
          <PostButton action={act("redeliver")}>Retry now</PostButton>
        </div>
      </>
    );
  }
  const channels = CHANNEL_NAMES.filter((name) => delivery[name]);
  const confirming = channels.find((name) => name === again && delivery[name]?.ok);
  const confirmingOutcome = confirming ? delivery[confirming] : undefined;
  return (
    <>
      <ul className="divide-y divide-slate-100 text-sm">
        {channels.map((name) => {
          const outcome = delivery[name];
          return outcome ? (
            <ChannelRow key={name} name={name} outcome={outcome} act={act} againHref={pageHref(name)} />
          ) : null;
        })}
        {channels.length === 0 ? <li className="py-1.5 text-muted">No channel was configured.</li> : null}
        {delivery.acknowledgment ? <AcknowledgmentItem outcome={delivery.acknowledgment} /> : null}
      </ul>
      {confirming && confirmingOutcome ? (
        <SendAgainConfirm
          name={confirming}
          outcome={confirmingOutcome}
          act={act}
          cancelHref={pageHref(null)}
        />
      ) : null}
    </>
  );
}
