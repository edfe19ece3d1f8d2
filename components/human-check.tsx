"use client";

import type { TurnstileInstance } from "@marsidev/react-turnstile";
import {
  lazy,
  type RefObject,
  Suspense,
  useCallback,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import type { FormSettings } from "@/lib/site/form-settings";
import type { VerificationAction } from "@/lib/verification/types";
import { CHALLENGE_MESSAGE, CHECK_UNAVAILABLE_MESSAGE } from "./form-messages";

/** The widget's code is loaded only when a form needs it: never on a page view, never with verification off. */
const Turnstile = lazy(() =>
  import("@marsidev/react-turnstile").then((module) => ({ default: module.Turnstile })),
);

/** How long a form waits for the widget's next token (a visitor may have to click it). */
const TOKEN_WAIT_MS = 60_000;

/** Where Cloudflare's widget script comes from. */
const SCRIPT_ORIGIN = "https://challenges.cloudflare.com/";

/**
 * Whether Cloudflare's script failed to load (an ad blocker, a network that cannot reach it): once
 * per page view, shared by every form on the page, since the widget component injects the script
 * once and never tries again. Watched from the page's start, with a capturing listener (a
 * script's load error does not bubble), rather than through the component's `scriptOptions.onError`,
 * which in @marsidev/react-turnstile 1.6 also deletes the load callback and so stops every
 * widget from ever rendering.
 */
const scriptLoad = { failed: false, listeners: new Set<() => void>(), watching: false };

function onResourceError(event: Event) {
  const target = event.target;
  if (!(target instanceof HTMLScriptElement) || !target.src.startsWith(SCRIPT_ORIGIN)) return;
  scriptLoad.failed = true;
  for (const listener of scriptLoad.listeners) listener();
}

function subscribeToScriptLoad(listener: () => void): () => void {
  if (!scriptLoad.watching) {
    scriptLoad.watching = true;
    window.addEventListener("error", onResourceError, true);
  }
  scriptLoad.listeners.add(listener);
  return () => scriptLoad.listeners.delete(listener);
}

const scriptFailed = () => scriptLoad.failed;
const notOnTheServer = () => false;

interface Token {
  value: string;
  action: VerificationAction;
}

/**
 * One form's human check with Cloudflare Turnstile, or nothing until `settings` say verification
 * is on. The widget, and with it Cloudflare's script, is only rendered once the
 * visitor starts on the form (`start`, on focus or input): a page view alone loads nothing.
 *
 * Tokens are single-use, and each is issued for one action: the form takes the current token when
 * it sends (`take`), asks for the next one, for another action if need be (`next`), and resets
 * the widget after any refusal (`reset`), so a second attempt has a fresh token.
 *
 * When the script cannot load (`unavailable`) no token can ever come: the form says so at once,
 * and offers the studio's address (`settings.studioEmail`) to write to instead.
 */
export function useHumanCheck(settings: FormSettings | null, initialAction: VerificationAction) {
  const siteKey = settings?.turnstileSiteKey ?? null;
  const studioEmail = settings?.studioEmail ?? null;
  const enabled = siteKey !== null;
  const unavailable = useSyncExternalStore(subscribeToScriptLoad, scriptFailed, notOnTheServer) && enabled;
  const widget = useRef<TurnstileInstance | undefined>(undefined);
  const token = useRef<Token | null>(null);
  const waiters = useRef<{ action: VerificationAction; resolve: (token: string | null) => void }[]>([]);
  const [started, setStarted] = useState(false);
  const [action, setActionState] = useState<VerificationAction>(initialAction);
  const actionRef = useRef(action);
  /** The challenge message shows next to the widget until a fresh token arrives. */
  const [failed, setFailed] = useState(false);
  const messageRef = useRef<HTMLParagraphElement>(null);

  // Started whether or not verification is known to be on yet: the forms learn that when the
  // visitor starts on them, and the widget renders as soon as the site key arrives.
  const start = useCallback(() => setStarted(true), []);

  /** The widget issues tokens for `next` from now on: re-rendered, so any earlier token is dropped. */
  const setAction = useCallback((next: VerificationAction) => {
    if (actionRef.current === next) return;
    actionRef.current = next;
    token.current = null;
    setActionState(next);
  }, []);

  const take = useCallback((wanted: VerificationAction): string | null => {
    const current = token.current;
    if (!current || current.action !== wanted) return null;
    token.current = null;
    return current.value;
  }, []);

  const next = useCallback(
    (wanted: VerificationAction): Promise<string | null> => {
      const ready = take(wanted);
      if (ready !== null || scriptLoad.failed) return Promise.resolve(ready);
      setAction(wanted);
      return new Promise((resolve) => {
        const waiter = { action: wanted, resolve };
        waiters.current.push(waiter);
        setTimeout(() => {
          waiters.current = waiters.current.filter((other) => other !== waiter);
          resolve(null);
        }, TOKEN_WAIT_MS);
      });
    },
    [setAction, take],
  );

  const reset = useCallback(() => {
    token.current = null;
    widget.current?.reset();
  }, []);

  /** The form cannot be sent yet: the message next to the widget, and the reading position on it. */
  const fail = useCallback(() => {
    setStarted(true);
    setFailed(true);
    // After the re-render that shows it.
    setTimeout(() => messageRef.current?.focus(), 0);
  }, []);

  const onSuccess = useCallback((value: string) => {
    const issued: Token = { value, action: actionRef.current };
    setFailed(false);
    const waiter = waiters.current.find((candidate) => candidate.action === issued.action);
    if (waiter) {
      waiters.current = waiters.current.filter((other) => other !== waiter);
      waiter.resolve(value);
      return;
    }
    token.current = issued;
  }, []);

  const dropToken = useCallback(() => {
    token.current = null;
  }, []);

  return useMemo(
    () => ({
      enabled,
      unavailable,
      start,
      setAction,
      take,
      next,
      reset,
      fail,
      field: {
        siteKey,
        studioEmail,
        unavailable,
        started,
        action,
        failed,
        widget,
        messageRef,
        onSuccess,
        dropToken,
      },
    }),
    [
      enabled,
      unavailable,
      start,
      setAction,
      take,
      next,
      reset,
      fail,
      siteKey,
      studioEmail,
      started,
      action,
      failed,
      onSuccess,
      dropToken,
    ],
  );
}

export type HumanCheck = ReturnType<typeof useHumanCheck>;

/**
 * Where the widget goes in a form: a sentence saying what it is (read before the widget, so
 * keyboard and screen reader users know what the frame that follows is for), the challenge
 * message when the check stopped the form. (Without JavaScript the widget cannot run: a form
 * sent then comes back with `NoScriptHumanCheckNote`.) When Cloudflare's script cannot load, a
 * note in its place says the form cannot be sent, and how else to reach the studio.
 */
export function HumanCheckField({ check, idPrefix }: { check: HumanCheck; idPrefix: string }) {
  const {
    siteKey,
    studioEmail,
    unavailable,
    started,
    action,
    failed,
    widget,
    messageRef,
    onSuccess,
    dropToken,
  } = check.field;
  if (siteKey === null) return null;
  if (unavailable) {
    return (
      <div className="flex flex-col gap-2" data-testid="human-check">
        <UnavailableNote studioEmail={studioEmail} messageRef={messageRef} />
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-2" data-testid="human-check">
      <p id={`${idPrefix}-human-check-hint`} className="text-sm text-muted">
        Before sending, a quick check by Cloudflare Turnstile confirms you are human.
      </p>
      {failed ? (
        <p ref={messageRef} tabIndex={-1} className="text-sm font-medium text-danger focus:outline-none">
          {CHALLENGE_MESSAGE}
        </p>
      ) : null}
      <div className="min-h-[65px]">
        {started ? (
          <Suspense fallback={null}>
            <Turnstile
              ref={widget}
              id={`${idPrefix}-turnstile`}
              siteKey={siteKey}
              options={{ action, size: "flexible", theme: "light", responseField: false }}
              onSuccess={onSuccess}
              onExpire={dropToken}
              onError={dropToken}
            />
          </Suspense>
        ) : null}
      </div>
    </div>
  );
}

/**
 * Said as soon as the script fails, not only when the visitor sends: nothing they type here can
 * be sent, so the way out comes first. An alert, since it appears while they are typing elsewhere.
 */
function UnavailableNote({
  studioEmail,
  messageRef,
}: {
  studioEmail: string | null;
  messageRef: RefObject<HTMLParagraphElement | null>;
}) {
  return (
    <p
      ref={messageRef}
      tabIndex={-1}
      role="alert"
      className="text-sm font-medium text-danger focus:outline-none"
    >
      {CHECK_UNAVAILABLE_MESSAGE} Cloudflare Turnstile may be blocked in this browser, or out of reach of this
      network.{" "}
      {studioEmail ? (
        <>
          Email us instead at{" "}
          <a href={`mailto:${studioEmail}`} className="underline underline-offset-2">
            {studioEmail}
          </a>
          , or reload the page to try again.
        </>
      ) : (
        "Reload the page to try again, or try from another browser or network."
      )}
    </p>
  );
}
