"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { BriefStatus } from "@/lib/ops/state";

const SHORTCUTS: [string, string][] = [
  ["j / k", "next / previous brief in the list"],
  ["Enter", "open the selected brief"],
  ["n / p", "open the next / previous brief (on a brief's page)"],
  ["u", "mark the selected (or open) brief new"],
  ["e", "mark the selected (or open) brief handled"],
  ["a", "mark the selected (or open) brief archived"],
  ["/", "search"],
  ["?", "show or hide these shortcuts"],
];

/** The status each key sets, as the brief page's buttons do. */
const STATUS_KEYS: Record<string, BriefStatus> = { u: "new", e: "handled", a: "archived" };

/** Typing in a field is never a shortcut. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * The inbox's keyboard shortcuts. `j`/`k` move the focus through the list's links (so `Enter`
 * opens one, as any link), `e` marks the focused row's brief (or the open brief) handled with the
 * same POST the page's button sends, `/` goes to the search field, `?` shows the help. Without
 * JavaScript every one of these is still a link or a button.
 */
export function KeyboardShortcuts() {
  const router = useRouter();
  const [help, setHelp] = useState(false);
  const [said, setSaid] = useState("");
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (help && !element.open) element.showModal();
    if (!help && element.open) element.close();
  }, [help]);

  useEffect(() => {
    async function mark(reference: string, status: BriefStatus) {
      const response = await fetch(`/api/ops/briefs/${encodeURIComponent(reference)}/status`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ status }),
      });
      setSaid(response.ok ? `${reference} marked ${status}.` : `${reference} could not be marked ${status}.`);
      if (response.ok) router.refresh();
    }

    function onKey(event: KeyboardEvent) {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typing(event.target))
        return;
      const rows = [...document.querySelectorAll<HTMLAnchorElement>("a[data-brief-row]")];
      const index = rows.findIndex((row) => row === document.activeElement);
      if (event.key === "j" || event.key === "k") {
        event.preventDefault();
        const next = event.key === "j" ? Math.min(index + 1, rows.length - 1) : Math.max(index - 1, 0);
        rows[index === -1 ? 0 : next]?.focus();
      } else if (event.key === "n" || event.key === "p") {
        const step = document.querySelector<HTMLAnchorElement>(
          `a[data-brief-step=${event.key === "n" ? "next" : "previous"}]`,
        );
        if (step) {
          event.preventDefault();
          step.click();
        }
      } else if (Object.hasOwn(STATUS_KEYS, event.key)) {
        const status = STATUS_KEYS[event.key] as BriefStatus;
        const reference =
          rows[index]?.dataset.briefRow ??
          document.querySelector<HTMLElement>("[data-open-brief]")?.dataset.openBrief;
        if (reference) {
          event.preventDefault();
          void mark(reference, status);
        }
      } else if (event.key === "/") {
        const search = document.querySelector<HTMLInputElement>("input[name=q]");
        if (search) {
          event.preventDefault();
          // The filters unfolded too: on a phone the search folds with them, and it cannot take
          // the focus while it is hidden.
          const filters = search.form?.querySelector<HTMLDetailsElement>("details[data-filters]");
          if (filters) filters.open = true;
          search.focus();
        }
      } else if (event.key === "?") {
        event.preventDefault();
        setHelp((shown) => !shown);
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [router]);

  return (
    <>
      <p aria-live="polite" className="sr-only">
        {said}
      </p>
      <footer className="mx-auto w-full max-w-7xl px-4 pb-4 text-xs text-muted">
        Press <kbd className="rounded border border-slate-300 bg-white px-1">?</kbd> for keyboard shortcuts.
      </footer>
      <dialog
        ref={dialog}
        aria-labelledby="shortcuts-title"
        onClose={() => setHelp(false)}
        className="m-auto w-full max-w-md rounded-lg border border-slate-200 p-5 shadow-lg backdrop:bg-slate-900/30"
      >
        <h2 id="shortcuts-title" className="text-base font-semibold text-ink">
          Keyboard shortcuts
        </h2>
        <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
          {SHORTCUTS.map(([keys, what]) => (
            <div key={keys} className="contents">
              <dt>
                <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs">
                  {keys}
                </kbd>
              </dt>
              <dd className="text-muted">{what}</dd>
            </div>
          ))}
        </dl>
        <form method="dialog" className="mt-4 text-right">
          <button
            type="submit"
            className="rounded bg-accent px-3 py-1.5 text-sm font-semibold text-white focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
          >
            Close
          </button>
        </form>
      </dialog>
    </>
  );
}
