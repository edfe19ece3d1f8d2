import type { ReactNode } from "react";
import { focusRing } from "./shell";

/** A button that posts one state change; without JavaScript the route answers with a 303 back here. */
export function PostButton({
  action,
  fields = {},
  children,
  tone = "plain",
  name,
  value,
  pressed,
  autoFocus,
}: {
  action: string;
  fields?: Record<string, string>;
  children: ReactNode;
  tone?: "plain" | "primary";
  name?: string;
  value?: string;
  pressed?: boolean;
  /** Only for a step the person just asked for (a confirmation), never on a page's first load. */
  autoFocus?: boolean;
}) {
  const style =
    tone === "primary"
      ? "bg-accent text-white hover:bg-accent-strong"
      : "border border-slate-300 bg-white text-ink hover:bg-slate-50";
  return (
    <form action={action} method="post" className="inline">
      {Object.entries(fields).map(([key, val]) => (
        <input key={key} type="hidden" name={key} value={val} />
      ))}
      <button
        type="submit"
        name={name}
        value={value}
        aria-pressed={pressed}
        autoFocus={autoFocus}
        className={`rounded px-2.5 py-1 text-sm font-medium ${style} ${focusRing}`}
      >
        {children}
      </button>
    </form>
  );
}

/** What the routes' `?error=` codes mean on a page. */
export function errorText(query: Record<string, string | string[] | undefined>): string | null {
  const code = typeof query.error === "string" ? query.error : null;
  if (code === null) return null;
  const field = typeof query.field === "string" ? query.field : null;
  switch (code) {
    case "validation_failed":
      return field === "text"
        ? "Write a note first (at most 5000 characters)."
        : field === "confirm"
          ? "The address typed the second time is not the same: nothing was erased."
          : field === "email"
            ? "Type a valid email address."
            : field === "token"
              ? "This sign-in link is not valid, has expired or was used already. Ask for a new one."
              : "Something in the form needs attention.";
    case "rate_limited":
      return "Too many requests. Please wait a few minutes and try again.";
    case "storage_unavailable":
      return "The inbox could not be reached just now. Please try again in a moment.";
    case "email_unavailable":
      return "The email could not be sent just now. Please try again in a moment.";
    case "challenge_failed":
      return "Please confirm you are human, then send again.";
    default:
      return "That did not work. Please try again.";
  }
}

/** The inbox filters' text, date and choice inputs. */
export const inputClass =
  "rounded border border-slate-300 bg-white px-2 py-1.5 text-sm text-ink focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30";

/** A labelled choice of a GET filter form: "Any" (the filter unset), then each option as it is named. */
export function ChoiceField({
  id,
  name,
  label,
  value,
  options,
}: {
  id: string;
  name: string;
  label: string;
  value: string | null;
  options: readonly string[];
}) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-muted">
        {label}
      </label>
      <select id={id} name={name} defaultValue={value ?? ""} className={inputClass}>
        <option value="">Any</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </div>
  );
}
