"use client";

import { useSyncExternalStore } from "react";

/** `2026-11-20 10:30` and the zone's short name, in `timeZone` (the reader's when undefined). */
function formatIn(date: Date, timeZone: string | undefined, seconds: boolean): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: seconds ? "2-digit" : undefined,
    hourCycle: "h23",
  }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((each) => each.type === type)?.value ?? "";
  const time = `${part("hour")}:${part("minute")}${seconds ? `:${part("second")}` : ""}`;
  return `${part("year")}-${part("month")}-${part("day")} ${time} ${zoneName(date, timeZone, "short")}`;
}

/** The zone's name as the reader's own locale says it ("CET", "EST", "GMT+1"); "UTC" for UTC. */
function zoneName(date: Date, timeZone: string | undefined, style: "short" | "long"): string {
  if (timeZone === "UTC") return "UTC";
  const parts = new Intl.DateTimeFormat(undefined, { timeZone, timeZoneName: style }).formatToParts(date);
  return parts.find((each) => each.type === "timeZoneName")?.value ?? "";
}

/**
 * A stored time (ISO 8601, UTC) in the reader's time zone, with the zone named:
 * `2026-11-20 10:30 CET`; hovering shows it to the second in the zone's long name and in UTC.
 * The server renders UTC (it cannot know the reader's zone); the browser rewrites it once
 * mounted, so it is never a time without its zone.
 */
export function LocalTime({ iso, seconds = false }: { iso: string; seconds?: boolean }) {
  const inBrowser = useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  const zone = inBrowser ? undefined : "UTC";
  const exact = `${formatIn(date, zone, true).replace(/ \S+$/, "")} ${zoneName(date, zone, "long")}`;
  return (
    <time dateTime={iso} title={inBrowser ? `${exact} (${formatIn(date, "UTC", true)})` : exact}>
      {formatIn(date, zone, seconds)}
    </time>
  );
}

/** Nothing to subscribe to: the only change is from the server's render to the browser's. */
const neverChanges = () => () => {};
