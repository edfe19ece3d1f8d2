import type { Coverage } from "@/lib/ops";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** `YYYY-MM-DD` in words: `21 October 2026`. */
function dayName(day: string): string {
  return `${Number(day.slice(8, 10))} ${MONTHS[Number(day.slice(5, 7)) - 1] ?? ""} ${day.slice(0, 4)}`;
}

/**
 * Said plainly while a lost index is being rebuilt: the counts and the search cover only the newest
 * months so far. Nothing is shown once the whole history is indexed.
 */
export function IndexCoverage({ coverage }: { coverage: Coverage }) {
  if (coverage.complete) return null;
  const left = `${coverage.monthsLeft} ${coverage.monthsLeft === 1 ? "month" : "months"}`;
  return (
    <p role="status" className="rounded border border-warning px-3 py-2 text-sm text-ink">
      Still indexing: the counts and the search cover{" "}
      {coverage.from === null ? "no month yet" : `briefs received from ${dayName(coverage.from)} on`}, with{" "}
      {left} of older history to go. Reload in a moment for more.
    </p>
  );
}
