import type { ReactNode } from "react";

export interface ControlProps {
  id: string;
  name: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

interface FieldProps {
  name: string;
  /** Prefix for element ids, so two forms on one page never share one. */
  idPrefix: string;
  label: string;
  hint?: string;
  error?: string | undefined;
  optional?: boolean;
  children: (control: ControlProps) => ReactNode;
}

/** A label, a control, a hint and an error message, tied together for assistive technology. */
export function Field({ name, idPrefix, label, hint, error, optional, children }: FieldProps) {
  const id = `${idPrefix}-${name}`;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-ink">
        {label}
        {optional ? <span className="font-normal text-muted"> (optional)</span> : null}
      </label>
      {children({ id, name, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy })}
      {hint ? (
        <p id={hintId} className="text-sm text-muted">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="text-sm font-medium text-danger">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export const inputClass =
  "w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-base text-ink shadow-sm " +
  "placeholder:text-slate-400 focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30 " +
  "aria-[invalid=true]:border-danger aria-[invalid=true]:ring-danger/20";
