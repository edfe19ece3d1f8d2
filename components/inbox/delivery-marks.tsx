import Link from "next/link";
import {
  type BriefFilter,
  type BriefPage,
  type DeliveryMark,
  deliveryMarks,
  filterQuery,
  type PendingDeliveries,
} from "@/lib/ops";
import { focusRing } from "./shell";

/**
 * The list's marks for briefs whose delivery is not done: a channel retrying on the schedule, or
 * one that gave up. Words first, the symbol and colour only repeat them; the marks come from the
 * store's due and failed records (`PendingDeliveries`), as the filter does.
 */

const MARK_TEXT: Record<DeliveryMark, { label: string; symbol: string; style: string }> = {
  retrying: { label: "Retrying", symbol: "\u21BB", style: "bg-amber-50 text-amber-900 ring-amber-200" },
  failed: { label: "Delivery failed", symbol: "\u2717", style: "bg-red-50 text-red-800 ring-red-200" },
};

export function DeliveryBadge({ mark }: { mark: DeliveryMark }) {
  const { label, symbol, style } = MARK_TEXT[mark];
  return (
    <span
      data-delivery-mark={mark}
      className={`inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${style}`}
    >
      <span aria-hidden="true">{symbol}</span>
      {label}
    </span>
  );
}

/** A row's marks (none for a brief whose channels are all done). */
export function DeliveryBadges({ reference, pending }: { reference: string; pending?: PendingDeliveries }) {
  if (!pending) return null;
  return deliveryMarks(reference, pending).map((mark) => <DeliveryBadge key={mark} mark={mark} />);
}

/**
 * "2 briefs retrying, 1 failed": each figure a link to the list filtered on it (the other filters
 * kept); nothing when every delivery is done, so the list stays quiet when all is well.
 */
export function DeliveryCounts({
  action,
  filter,
  counts,
}: {
  action: string;
  filter: BriefFilter;
  counts: BriefPage["deliveryCounts"];
}) {
  if (counts.retrying === 0 && counts.failed === 0 && filter.delivery === null) return null;
  const link = (mark: DeliveryMark, text: string) => (
    <Link
      href={`${action}?${filterQuery({ ...filter, delivery: mark }).toString()}`}
      aria-current={filter.delivery === mark ? "true" : undefined}
      className={`font-medium text-accent underline-offset-2 hover:underline aria-[current]:text-ink ${focusRing}`}
    >
      {text}
    </Link>
  );
  const briefs = counts.retrying === 1 ? "brief" : "briefs";
  return (
    <p data-delivery-counts className="text-sm text-muted">
      {link("retrying", `${counts.retrying} ${briefs} retrying`)}, {link("failed", `${counts.failed} failed`)}
      {filter.delivery !== null ? (
        <>
          {" · "}
          <Link
            href={`${action}${filterQuery({ ...filter, delivery: null }).size > 0 ? `?${filterQuery({ ...filter, delivery: null }).toString()}` : ""}`}
            className={`font-medium text-accent underline-offset-2 hover:underline ${focusRing}`}
          >
            any delivery
          </Link>
        </>
      ) : null}
    </p>
  );
}
