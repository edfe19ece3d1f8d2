"use client";

import { type FormEvent, useId, useRef, useState } from "react";
import { NEWSLETTER_TOPICS, newsletterSchema } from "@/lib/schemas/newsletter";
import { fieldMessages } from "@/lib/schemas/text";
import { TOKEN_FIELD } from "@/lib/verification/types";
import { useFormStart } from "./deferred-form";
import { CHECK_UNAVAILABLE_MESSAGE, newsletterErrorMessage } from "./form-messages";
import { useFormSettings } from "./form-settings";
import { HumanCheckField, useHumanCheck } from "./human-check";

const UNREACHABLE = "We could not reach the server. Check your connection and try again.";
import { Button } from "./ui/button";
import { inputClass } from "./ui/field";
import { currentPage } from "./visit-attribution";

type Errors = Partial<Record<"email" | "topics", string>>;

type Status =
  | { kind: "idle" }
  | { kind: "sending" }
  | { kind: "done"; status: Outcome }
  | { kind: "failed"; message: string };

type Outcome = "subscribed" | "already-subscribed" | "confirmation-sent";

const RESULT_TEXT: Record<Outcome, string> = {
  subscribed: "You are subscribed. The next issue will be in your inbox.",
  "already-subscribed": "You were already subscribed. We have added any new topics you chose.",
  "confirmation-sent": "Almost done: we have emailed you a link. Open it to confirm your subscription.",
};

export interface NewsletterFormProps {
  /** Set when a browser without JavaScript was sent to the newsletter page by the server. */
  initialResult?: Outcome;
  initialErrors?: Errors;
  initialMessage?: string;
  /** The heading's level: a section of the footer, or the page's own heading. */
  headingLevel?: "h1" | "h2";
  /** Also the form's accessible name: two newsletter forms on one page need different ones. */
  title?: string;
  /** The path the form is rendered at, sent as `page` by a browser without JavaScript (the footer cannot know it). */
  page?: string;
  /** Where the subscription is posted (`POST /api/newsletter`). */
  action?: string;
}

export function NewsletterForm({
  initialResult,
  initialErrors = {},
  initialMessage,
  headingLevel: Heading = "h2",
  title = "Newsletter",
  page,
  action = "/api/newsletter",
}: NewsletterFormProps) {
  const idPrefix = `newsletter${useId().replace(/[^a-zA-Z0-9]/g, "")}`;
  const formRef = useRef<HTMLFormElement>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const [errors, setErrors] = useState<Errors>(initialErrors);
  const [status, setStatus] = useState<Status>(
    initialResult
      ? { kind: "done", status: initialResult }
      : initialMessage
        ? { kind: "failed", message: initialMessage }
        : { kind: "idle" },
  );
  // Turnstile's site key, learnt at run time when the visitor starts on the form.
  const { settings, load } = useFormSettings();
  const human = useHumanCheck(settings, "newsletter");

  const start = useFormStart(formRef, human.start, load);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (status.kind === "sending") return;
    const data = new FormData(event.currentTarget);
    const request = {
      email: String(data.get("email") ?? ""),
      topics: data.getAll("topics").map(String),
      page: currentPage(),
    };
    const parsed = newsletterSchema.safeParse(request);
    if (!parsed.success) {
      const invalid = fieldMessages(parsed.error) as Errors;
      setErrors(invalid);
      setStatus({ kind: "idle" });
      if (invalid.email) emailRef.current?.focus();
      return;
    }
    setErrors({});
    let verifying: boolean;
    try {
      verifying = (await load()).turnstileSiteKey !== null;
    } catch {
      setStatus({ kind: "failed", message: UNREACHABLE });
      return;
    }
    // Never sent without a token.
    const humanToken = verifying ? human.take("newsletter") : null;
    if (verifying && humanToken === null) {
      const message = human.unavailable
        ? CHECK_UNAVAILABLE_MESSAGE
        : newsletterErrorMessage("challenge_failed");
      setStatus({ kind: "failed", message });
      human.fail();
      return;
    }
    setStatus({ kind: "sending" });
    try {
      const response = await fetch(action, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(humanToken === null ? request : { ...request, [TOKEN_FIELD]: humanToken }),
      });
      const body = (await response.json().catch(() => null)) as {
        status?: Outcome;
        error?: string;
        fields?: Errors;
      } | null;
      if (response.ok && body?.status) {
        setStatus({ kind: "done", status: body.status });
        return;
      }
      human.reset();
      if (body?.error === "challenge_failed") human.fail();
      if (body?.fields) setErrors(body.fields);
      if (body?.fields?.email) emailRef.current?.focus();
      const retryAfter = Number(response.headers.get("Retry-After")) || null;
      setStatus({ kind: "failed", message: newsletterErrorMessage(body?.error ?? null, retryAfter) });
    } catch {
      human.reset();
      setStatus({ kind: "failed", message: UNREACHABLE });
    }
  }

  const emailError = errors.email;
  return (
    <form
      ref={formRef}
      action={action}
      method="post"
      noValidate
      onSubmit={onSubmit}
      onFocus={start}
      onInput={start}
      aria-labelledby={`${idPrefix}-title`}
      className="flex flex-col gap-4"
    >
      <div>
        <Heading id={`${idPrefix}-title`} className="text-lg font-semibold text-ink">
          {title}
        </Heading>
        <p className="mt-1 text-sm text-muted">One email a month on what we are building and learning.</p>
      </div>
      <div className="flex flex-col gap-1.5">
        <label htmlFor={`${idPrefix}-email`} className="text-sm font-medium text-ink">
          Email
        </label>
        <div className="flex flex-col gap-3 sm:flex-row">
          <input
            ref={emailRef}
            id={`${idPrefix}-email`}
            name="email"
            type="email"
            autoComplete="email"
            required
            aria-invalid={emailError ? true : undefined}
            aria-describedby={emailError ? `${idPrefix}-email-error` : undefined}
            className={inputClass}
          />
          <Button type="submit" disabled={status.kind === "sending"} className="shrink-0">
            {status.kind === "sending" ? "Subscribing…" : "Subscribe"}
          </Button>
        </div>
        {emailError ? (
          <p id={`${idPrefix}-email-error`} className="text-sm font-medium text-danger">
            {emailError}
          </p>
        ) : null}
      </div>
      <fieldset
        aria-describedby={errors.topics ? `${idPrefix}-topics-error` : undefined}
        className="flex flex-col gap-2"
      >
        <legend className="text-sm font-medium text-ink">
          Topics <span className="font-normal text-muted">(optional)</span>
        </legend>
        <div className="flex flex-wrap gap-x-4 gap-y-2">
          {NEWSLETTER_TOPICS.map((topic) => (
            <label key={topic} className="inline-flex items-center gap-2 text-sm text-ink">
              <input
                type="checkbox"
                name="topics"
                value={topic}
                className="h-4 w-4 rounded border-slate-300 text-accent focus:ring-accent"
              />
              {topic}
            </label>
          ))}
        </div>
        {errors.topics ? (
          <p id={`${idPrefix}-topics-error`} className="text-sm font-medium text-danger">
            {errors.topics}
          </p>
        ) : null}
      </fieldset>
      {page ? <input type="hidden" name="page" value={page} /> : null}
      <HumanCheckField check={human} idPrefix={idPrefix} />
      <p role="status" aria-live="polite" className="text-sm" data-testid="newsletter-status">
        {status.kind === "done" ? (
          <span className="font-medium text-success">{RESULT_TEXT[status.status]}</span>
        ) : status.kind === "failed" ? (
          <span className="font-medium text-danger">{status.message}</span>
        ) : null}
      </p>
    </form>
  );
}
