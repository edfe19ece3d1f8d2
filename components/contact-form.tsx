"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import {
  ATTACHMENT_ACCEPT,
  BRIEF_FORM_ORDER,
  BRIEF_HINTS,
  BUDGETS,
  briefSchema,
  checkAttachmentChoice,
  PROJECT_TYPES,
  TIMELINES,
  type BriefFormField,
} from "@/lib/schemas/brief";
import { fieldMessages } from "@/lib/schemas/text";
import { TOKEN_FIELD } from "@/lib/verification/types";
import type { FormSettings } from "@/lib/site/form-settings";
import { ConsentField, Select, UploadProgress } from "./contact-form-parts";
import { type Answer, postBrief, uploadAhead } from "./contact-form-requests";
import { useFormStart } from "./deferred-form";
import { CHECK_UNAVAILABLE_MESSAGE, contactErrorMessage } from "./form-messages";
import { useFormSettings } from "./form-settings";
import { HumanCheckField, useHumanCheck } from "./human-check";
import { NextSteps } from "./next-steps";
import { Button } from "./ui/button";
import { Field, inputClass } from "./ui/field";
import { visitFields } from "./visit-attribution";

type Errors = Partial<Record<BriefFormField, string>>;

type Status =
  | { kind: "idle" }
  | { kind: "sending"; progress: number | null }
  | { kind: "failed"; message: string }
  | { kind: "sent"; reference: string };

export interface ContactFormProps {
  /** Set when a browser without JavaScript was sent back here by the server. */
  initialErrors?: Errors;
  initialMessage?: string;
  /** The path the form is rendered at: what a browser without JavaScript sends as `page`. */
  page?: string;
  /** Where the brief is posted (`POST /api/contact`); its file's upload token comes from `<action>/upload`. */
  action?: string;
  /**
   * Where the browser goes once the brief is stored, with `?reference=`; unset, the form says so
   * in its place. A browser without JavaScript is sent to `/thank-you` by the server.
   */
  thankYouPath?: string;
}

/** Checks the form in the browser with the same schema the server uses. */
function validate(data: FormData): Errors {
  const input: Record<string, unknown> = {};
  for (const field of BRIEF_FORM_ORDER) {
    const value = data.get(field);
    if (typeof value === "string") input[field] = value;
  }
  const parsed = briefSchema.safeParse(input);
  const errors: Errors = parsed.success ? {} : (fieldMessages(parsed.error) as Errors);
  const file = data.get("brief");
  if (file instanceof File && (file.name !== "" || file.size > 0)) {
    const problem = checkAttachmentChoice(file);
    if (problem) errors.brief = problem;
  }
  return errors;
}

/**
 * The contact form. With human verification on, it renders the Turnstile widget once the visitor
 * starts on it and never sends without a token: one for the brief (action `contact`) and, with the
 * Blob inbox, one before it for the file's upload token (action `upload`). The widget issues tokens
 * for whichever step comes next: `upload` while a chosen file is still to be uploaded, then, once
 * it is, it switches to `contact` and the form waits for that token before sending.
 */
export function ContactForm({
  initialErrors = {},
  initialMessage,
  page,
  action = "/api/contact",
  thankYouPath,
}: ContactFormProps) {
  const idPrefix = `contact${useId().replace(/[^a-zA-Z0-9]/g, "")}`;
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const sentHeadingRef = useRef<HTMLHeadingElement>(null);
  /** The last file uploaded ahead of the form, so sending again after a refusal does not upload it twice. */
  const uploaded = useRef<{ file: File; path: string } | null>(null);
  const [errors, setErrors] = useState<Errors>(initialErrors);
  const [status, setStatus] = useState<Status>(
    initialMessage ? { kind: "failed", message: initialMessage } : { kind: "idle" },
  );
  // Learnt at run time when the visitor starts on the form (the page itself is prerendered):
  // whether a file goes to the Blob store ahead of the form, and Turnstile's site key.
  const { settings, load } = useFormSettings();
  const human = useHumanCheck(settings, "contact");

  /**
   * The step the next token is for: the file's upload while one is still to go ahead of the form
   * (with the Blob inbox: a file is uploaded straight to the store first, since a function on
   * Vercel takes at most 4.5 MB, and the form carries the upload's path in `briefUpload`).
   */
  function nextStep(file: FormDataEntryValue | null, directUpload: boolean): "upload" | "contact" {
    const chosen = file instanceof File && (file.name !== "" || file.size > 0) ? file : null;
    return directUpload && chosen && uploaded.current?.file !== chosen ? "upload" : "contact";
  }

  const start = useFormStart(formRef, human.start, load);

  /** The form cannot be sent without the check: say so next to the widget. */
  function challengeFailed() {
    const message = human.unavailable ? CHECK_UNAVAILABLE_MESSAGE : contactErrorMessage("challenge_failed");
    setStatus({ kind: "failed", message });
    human.fail();
  }

  useEffect(() => {
    if (status.kind === "sent") sentHeadingRef.current?.focus();
  }, [status.kind]);

  function focusFirstInvalid(invalid: Errors) {
    const first = BRIEF_FORM_ORDER.find((field) => invalid[field]);
    const element = first ? formRef.current?.elements.namedItem(first) : null;
    if (element instanceof HTMLElement) element.focus();
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (status.kind === "sending") return;
    const data = new FormData(event.currentTarget);
    const invalid = validate(data);
    setErrors(invalid);
    if (Object.keys(invalid).length > 0) {
      setStatus({ kind: "failed", message: contactErrorMessage("validation_failed") });
      focusFirstInvalid(invalid);
      return;
    }

    // Where the visit came from (this page, the first referrer and utm_*), in place of the hidden `page`.
    for (const [field, value] of Object.entries(visitFields())) data.set(field, value);

    // An unchosen file input still sends an empty part; leave it out instead.
    const file = data.get("brief");
    if (file instanceof File && file.name === "" && file.size === 0) data.delete("brief");
    const chosen = file instanceof File && data.has("brief") ? file : null;

    let current: FormSettings;
    try {
      current = await load();
    } catch {
      setStatus({ kind: "failed", message: contactErrorMessage("network") });
      return;
    }
    const directUpload = current.upload === "blob";
    const verifying = current.turnstileSiteKey !== null;

    // Never sent without a token: the first step's must be there before anything goes.
    let humanToken = verifying ? human.take(nextStep(chosen, directUpload)) : null;
    if (verifying && humanToken === null) {
      challengeFailed();
      return;
    }

    setStatus({ kind: "sending", progress: chosen ? 0 : null });
    const showProgress = (fraction: number) =>
      setStatus((current) =>
        current.kind === "sending" && current.progress !== null
          ? { ...current, progress: fraction }
          : current,
      );
    try {
      if (chosen && directUpload) {
        let staged: string | Answer;
        if (uploaded.current?.file === chosen) {
          staged = uploaded.current.path;
        } else {
          staged = await uploadAhead(`${action}/upload`, chosen, humanToken, showProgress);
          if (typeof staged !== "string") {
            human.reset();
            refused(staged, true);
            return;
          }
          uploaded.current = { file: chosen, path: staged };
          // The upload's token is spent: the brief needs one of its own.
          if (verifying) {
            humanToken = await human.next("contact");
            if (humanToken === null) {
              challengeFailed();
              return;
            }
          }
        }
        data.delete("brief");
        data.set("briefUpload", staged);
        showProgress(1);
      }
      if (humanToken !== null) data.set(TOKEN_FIELD, humanToken);
      const answer = await postBrief(action, data, directUpload ? () => {} : showProgress);
      if (answer.status === 200 && answer.body?.reference) {
        const { reference } = answer.body;
        if (thankYouPath !== undefined) {
          router.push(`${thankYouPath}?reference=${encodeURIComponent(reference)}`);
          return;
        }
        setStatus({ kind: "sent", reference });
        return;
      }
      human.reset();
      // A refused or missing upload is not offered again; any other refusal leaves it for the retry.
      if (answer.body?.fields?.brief) {
        uploaded.current = null;
        human.setAction(nextStep(chosen, directUpload));
      }
      refused(answer, false);
    } catch {
      human.reset();
      setStatus({ kind: "failed", message: contactErrorMessage("network") });
    }
  }

  /** Shows why the server said no, next to the fields it names; `upload`: the file's upload did. */
  function refused(answer: Answer, upload: boolean) {
    const code = answer.body?.error ?? null;
    const serverErrors: Errors = upload
      ? code === "validation_failed" || code === "upload_failed"
        ? { brief: "This file could not be uploaded. Try again, or choose another file." }
        : {}
      : ((answer.body?.fields ?? {}) as Errors);
    setErrors(serverErrors);
    setStatus({ kind: "failed", message: contactErrorMessage(code, answer.retryAfter) });
    if (code === "challenge_failed") human.fail();
    else focusFirstInvalid(serverErrors);
  }

  /** After a failed attempt, a corrected field loses its message as the visitor fixes it. */
  function onChange(event: FormEvent<HTMLFormElement>) {
    const target = event.target as HTMLInputElement;
    const field = target.name as BriefFormField;
    if (field === "brief" && formRef.current) {
      const file = new FormData(formRef.current).get("brief");
      load()
        .then((loaded) => human.setAction(nextStep(file, loaded.upload === "blob")))
        .catch(() => {});
    }
    if (!errors[field] || !formRef.current) return;
    const fresh = validate(new FormData(formRef.current));
    setErrors((current) => ({ ...current, [field]: fresh[field] }));
  }

  if (status.kind === "sent") {
    return (
      <div className="rounded-2xl border border-emerald-200 bg-emerald-50 p-6 sm:p-8" role="status">
        <h3 ref={sentHeadingRef} tabIndex={-1} className="text-xl font-semibold text-ink focus:outline-none">
          Thank you, your brief is with us.
        </h3>
        <p className="mt-3 text-ink">
          Your reference is{" "}
          <strong className="font-mono text-lg tracking-wider" data-testid="reference">
            {status.reference}
          </strong>
          . Quote it if you write to us about this project.
        </p>
        <NextSteps />
      </div>
    );
  }

  const sending = status.kind === "sending";
  const control = (field: BriefFormField) => ({ error: errors[field], idPrefix });

  return (
    <form
      ref={formRef}
      action={action}
      method="post"
      encType="multipart/form-data"
      noValidate
      onSubmit={onSubmit}
      onChange={onChange}
      onFocus={start}
      onInput={start}
      aria-describedby={`${idPrefix}-status`}
      className="grid gap-5 sm:grid-cols-2"
    >
      <Field name="name" label="Name" {...control("name")}>
        {(props) => <input {...props} type="text" autoComplete="name" required className={inputClass} />}
      </Field>
      <Field name="email" label="Email" hint={BRIEF_HINTS.email} {...control("email")}>
        {(props) => <input {...props} type="email" autoComplete="email" required className={inputClass} />}
      </Field>
      <Field name="company" label="Company" optional {...control("company")}>
        {(props) => <input {...props} type="text" autoComplete="organization" className={inputClass} />}
      </Field>
      <Field name="role" label="Role" optional {...control("role")}>
        {(props) => <input {...props} type="text" autoComplete="organization-title" className={inputClass} />}
      </Field>

      <div className="grid gap-5 sm:col-span-2 sm:grid-cols-3">
        <Field name="projectType" label="Project type" {...control("projectType")}>
          {(props) => <Select {...props} options={PROJECT_TYPES} />}
        </Field>
        <Field name="budget" label="Budget" {...control("budget")}>
          {(props) => <Select {...props} options={BUDGETS} />}
        </Field>
        <Field name="timeline" label="Timeline" {...control("timeline")}>
          {(props) => <Select {...props} options={TIMELINES} />}
        </Field>
      </div>

      <div className="sm:col-span-2">
        <Field
          name="description"
          label="About the project"
          hint={BRIEF_HINTS.description}
          {...control("description")}
        >
          {(props) => <textarea {...props} rows={6} required className={inputClass} />}
        </Field>
      </div>

      <div className="sm:col-span-2">
        <Field name="brief" label="Attach a brief" optional hint={BRIEF_HINTS.brief} {...control("brief")}>
          {(props) => (
            <input
              {...props}
              type="file"
              accept={ATTACHMENT_ACCEPT}
              className="block w-full text-sm text-muted file:mr-4 file:rounded-lg file:border-0 file:bg-indigo-50 file:px-4 file:py-2 file:font-semibold file:text-accent hover:file:bg-indigo-100"
            />
          )}
        </Field>
      </div>

      {/* People never see or fill this; bots that fill every field give themselves away. */}
      <div aria-hidden="true" className="absolute -left-[10000px] h-px w-px overflow-hidden">
        <label htmlFor={`${idPrefix}-website`}>Leave this field empty</label>
        <input id={`${idPrefix}-website`} name="website" type="text" tabIndex={-1} autoComplete="off" />
      </div>

      {page ? <input type="hidden" name="page" value={page} /> : null}

      <ConsentField idPrefix={idPrefix} error={errors.consent} />

      <div className="flex flex-col gap-4 sm:col-span-2">
        <HumanCheckField check={human} idPrefix={idPrefix} />
        {status.kind === "sending" && status.progress !== null ? (
          <UploadProgress idPrefix={idPrefix} progress={status.progress} />
        ) : null}
        <div className="flex flex-wrap items-center gap-4">
          <Button type="submit" disabled={sending} aria-disabled={sending}>
            {sending ? "Sending…" : "Send brief"}
          </Button>
          <p id={`${idPrefix}-status`} role="status" aria-live="polite" className="text-sm">
            {status.kind === "failed" ? (
              <span className="font-medium text-danger">{status.message}</span>
            ) : sending ? (
              "Sending your brief…"
            ) : null}
          </p>
        </div>
      </div>
    </form>
  );
}
