import type { SelectHTMLAttributes } from "react";
import { BRIEF_HINTS } from "@/lib/schemas/brief";
import { inputClass } from "./ui/field";

/** The contact form's parts that hold no state of their own. */

/** The consent checkbox, with its hint and, after a failed attempt, its message. */
export function ConsentField({ idPrefix, error }: { idPrefix: string; error: string | undefined }) {
  return (
    <div className="sm:col-span-2">
      <div className="flex items-start gap-3">
        <input
          id={`${idPrefix}-consent`}
          name="consent"
          type="checkbox"
          value="on"
          required
          aria-invalid={error ? true : undefined}
          aria-describedby={[error ? `${idPrefix}-consent-error` : "", `${idPrefix}-consent-hint`]
            .filter(Boolean)
            .join(" ")}
          className="mt-1 h-5 w-5 rounded border-slate-300 text-accent focus:ring-accent"
        />
        <div>
          <label htmlFor={`${idPrefix}-consent`} className="text-sm font-medium text-ink">
            You may contact me about this brief.
          </label>
          <p id={`${idPrefix}-consent-hint`} className="text-sm text-muted">
            {BRIEF_HINTS.consent}
          </p>
          {error ? (
            <p id={`${idPrefix}-consent-error`} className="text-sm font-medium text-danger">
              {error}
            </p>
          ) : null}
        </div>
      </div>
    </div>
  );
}

/** The file's upload progress while a brief with a file is being sent. */
export function UploadProgress({ idPrefix, progress }: { idPrefix: string; progress: number }) {
  return (
    <div className="flex items-center gap-3">
      <label htmlFor={`${idPrefix}-progress`} className="text-sm text-muted">
        Uploading
      </label>
      <progress
        id={`${idPrefix}-progress`}
        max={1}
        value={progress}
        className="h-2 flex-1 overflow-hidden rounded-full accent-accent"
      />
      <span className="w-12 text-right text-sm tabular-nums text-muted">{Math.round(progress * 100)}%</span>
    </div>
  );
}

/** A required choice among `options`, starting on a disabled "Choose…". */
export function Select({
  options,
  ...props
}: { options: Record<string, string> } & Omit<SelectHTMLAttributes<HTMLSelectElement>, "children">) {
  return (
    <select {...props} defaultValue="" required className={inputClass}>
      <option value="" disabled>
        Choose…
      </option>
      {Object.entries(options).map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
    </select>
  );
}
