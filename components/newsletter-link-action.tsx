"use client";

import { type FormEvent, useState } from "react";
import { newsletterErrorMessage } from "./form-messages";
import { Button } from "./ui/button";

type State =
  { kind: "idle" } | { kind: "sending" } | { kind: "done"; text: string } | { kind: "failed"; text: string };

interface LinkActionProps {
  /** Where the button posts: `/api/newsletter/confirm`, or `/api/newsletter/unsubscribe?token=…`. */
  action: string;
  /** Sent in the body (the confirm route reads it there; the unsubscribe route reads its URL). */
  token?: string;
  label: string;
  busyLabel: string;
  /** What to say for each status the route answers. */
  results: Record<string, string>;
}

/**
 * The one button of a page an emailed link opens. Without JavaScript it is a plain form post and
 * the route sends the browser back to the page with the outcome; with it, the answer is shown here.
 */
export function NewsletterLinkAction({ action, token, label, busyLabel, results }: LinkActionProps) {
  const [state, setState] = useState<State>({ kind: "idle" });

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (state.kind === "sending") return;
    setState({ kind: "sending" });
    try {
      const response = await fetch(action, {
        method: "POST",
        headers:
          token === undefined
            ? { Accept: "application/json" }
            : { "Content-Type": "application/json", Accept: "application/json" },
        body: token === undefined ? null : JSON.stringify({ token }),
      });
      const body = (await response.json().catch(() => null)) as {
        status?: string;
        error?: string;
        fields?: { token?: string };
      } | null;
      const done = body?.status ? results[body.status] : undefined;
      if (response.ok && done) {
        setState({ kind: "done", text: done });
        return;
      }
      const retryAfter = Number(response.headers.get("Retry-After")) || null;
      setState({
        kind: "failed",
        text: body?.fields?.token ?? newsletterErrorMessage(body?.error ?? null, retryAfter),
      });
    } catch {
      setState({ kind: "failed", text: newsletterErrorMessage("network") });
    }
  }

  return (
    <form action={action} method="post" onSubmit={onSubmit} className="mt-8 flex flex-col gap-4">
      {token === undefined ? null : <input type="hidden" name="token" value={token} />}
      {state.kind === "done" ? null : (
        <div>
          <Button type="submit" disabled={state.kind === "sending"}>
            {state.kind === "sending" ? busyLabel : label}
          </Button>
        </div>
      )}
      <p role="status" aria-live="polite" className="text-base" data-testid="link-status">
        {state.kind === "done" ? (
          <span className="font-medium text-success">{state.text}</span>
        ) : state.kind === "failed" ? (
          <span className="font-medium text-danger">{state.text}</span>
        ) : null}
      </p>
    </form>
  );
}
