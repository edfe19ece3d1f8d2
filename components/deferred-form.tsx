"use client";

import {
  Activity,
  type ReactNode,
  type RefObject,
  use,
  useCallback,
  useEffect,
  useRef,
  useSyncExternalStore,
} from "react";

/**
 * A form whose code the browser loads only when the visitor comes near it: the server renders the
 * whole form into the page (where it works without JavaScript, posted natively), and the browser
 * leaves that HTML as it is, dehydrated, until the form comes into view or the visitor focuses,
 * touches or types in it. Then the form's code (its schemas, Turnstile's component, the upload
 * client) loads and React hydrates the very elements the visitor may already be typing in, so
 * nothing typed, chosen or focused is lost. A form sent before its code has run is held and sent
 * by the code once it runs; if the code cannot load, the browser sends it natively after all.
 */

/** Starts loading a little before the form scrolls into view, so it is ready when it arrives. */
const AHEAD_OF_VIEW = "200px";

/** What says the visitor is opening the form (captured: focus does not bubble). */
const OPENING_EVENTS = ["focusin", "pointerdown", "keydown", "input"] as const;

/** What the forms themselves start on (`onFocus`, `onInput`): missed while they are dehydrated. */
const STARTING_EVENTS = ["focusin", "input"] as const;

/**
 * The forms the visitor focused or typed in before their code ran, watched from the moment the
 * page's own code runs (before React's, whose replay of an early focus keeps only the last one).
 */
const startedForms = new WeakSet<HTMLFormElement>();

function noteStartedForm(event: Event) {
  const form = event.target instanceof Element ? event.target.closest("form") : null;
  if (form) startedForms.add(form);
}

if (typeof document !== "undefined") {
  for (const type of STARTING_EVENTS) {
    document.addEventListener(type, noteStartedForm, { capture: true, passive: true });
  }
}

/** Whether the visitor focused or typed in `form` before its code ran. */
function startedBeforeHydration(form: HTMLFormElement | null): boolean {
  return form !== null && (startedForms.has(form) || form.contains(document.activeElement));
}

/**
 * What a form starts when a visitor starts on it (its human check, and its run-time settings,
 * asked again when the form is sent): the handler for its `onFocus` and `onInput`. Started at
 * once as well where the visitor focused or typed in the form before its code ran (its code loads
 * as the visitor comes near, `DeferredForm`): a start React never saw.
 */
export function useFormStart(
  form: RefObject<HTMLFormElement | null>,
  startHumanCheck: () => void,
  loadSettings: () => Promise<unknown>,
): () => void {
  const start = useCallback(() => {
    startHumanCheck();
    loadSettings().catch(() => {});
  }, [startHumanCheck, loadSettings]);
  useEffect(() => {
    if (startedBeforeHydration(form.current)) start();
  }, [form, start]);
  return start;
}

/** One form's code: imported at once on the server, in the browser when `load` is first called. */
export class DeferredCode<Module> {
  private loading: Promise<Module> | null = null;
  private openGate: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => (this.openGate = resolve));
  /** Whether the form has hydrated: its own handlers now take submits. */
  ready = false;
  private readonly waiting = new Set<() => void>();

  /**
   * `onServer`: the module's `import()` where there is no `window`, begun when the page's code
   * loads, `null` in the browser; `importInBrowser`: the `import()` that becomes the form's own
   * chunk. The server's render waits for its copy in place (no Suspense boundary above the form),
   * so the form is in the page's HTML itself, never a streamed fallback that a browser without
   * JavaScript could not swap in.
   */
  constructor(
    readonly onServer: Promise<Module> | null,
    private readonly importInBrowser: () => Promise<Module>,
  ) {}

  /** The module's promise, settled once `load` has been called and the chunk has arrived. */
  get module(): Promise<Module> {
    this.loading ??= this.gate.then(this.importInBrowser);
    return this.loading;
  }

  load(): Promise<Module> {
    this.openGate();
    return this.module;
  }

  /** Called by the form's wrapper once it has hydrated. */
  hydrated(): void {
    this.ready = true;
    for (const callback of this.waiting) callback();
    this.waiting.clear();
  }

  /** `callback` once the form has hydrated (at once if it has). */
  whenHydrated(callback: () => void): () => void {
    if (this.ready) {
      callback();
      return () => {};
    }
    this.waiting.add(callback);
    return () => this.waiting.delete(callback);
  }
}

/**
 * Where a deferred form goes: `children` renders it with its module.
 *
 * The boundary that keeps the server's HTML dehydrated is an `Activity`, not a `Suspense`: React
 * hydrates a visible Activity's content at idle priority and, when something inside suspends (the
 * module, until it is loaded), leaves that content as the server rendered it, as Suspense does. But
 * the server writes an Activity's content in place, where a Suspense boundary's content may be sent
 * at the end of the page in a hidden element that only JavaScript can put in place (React moves a
 * large boundary there once the page is past about 12 KB): a browser without JavaScript would not
 * see the form. Nothing here may re-render with new props before the form has hydrated (an update
 * to a dehydrated boundary makes React replace the server's HTML), so it holds no state.
 */
export function DeferredForm<Module>({
  code,
  children,
}: {
  code: DeferredCode<Module>;
  children: (module: Module) => ReactNode;
}) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    return element ? loadOnApproach(element, code) : undefined;
  }, [code]);
  return (
    <div ref={holder}>
      <Activity mode="visible">
        <Loaded code={code}>{children}</Loaded>
      </Activity>
    </div>
  );
}

const subscribeToNothing = () => () => {};

function Loaded<Module>({
  code,
  children,
}: {
  code: DeferredCode<Module>;
  children: (module: Module) => ReactNode;
}) {
  // `false` on the server and while hydrating the server's HTML; `true` where the browser renders
  // the form itself (a page reached by a navigation within the site): there is no HTML to keep
  // then, and nothing else would ask for the code.
  const renderedByBrowser = useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
  if (renderedByBrowser) code.load().catch(() => {});
  const loaded = use(code.onServer ?? code.module);
  useEffect(() => code.hydrated(), [code]);
  return children(loaded);
}

/**
 * Loads `code` when `holder` comes near the viewport or the visitor opens the form, and holds a
 * submit that comes before the form's code runs. Returns the clean-up.
 */
function loadOnApproach<Module>(holder: HTMLElement, code: DeferredCode<Module>): () => void {
  const load = () => {
    stopWatching();
    code.load().catch(() => {});
  };
  const observer = new IntersectionObserver(
    (entries) => {
      if (entries.some((entry) => entry.isIntersecting)) load();
    },
    { rootMargin: AHEAD_OF_VIEW },
  );
  observer.observe(holder);
  for (const type of OPENING_EVENTS) holder.addEventListener(type, load, { capture: true, passive: true });
  function stopWatching() {
    observer.disconnect();
    for (const type of OPENING_EVENTS) holder.removeEventListener(type, load, { capture: true });
  }

  let stopWaiting = () => {};
  const holdEarlySubmit = (event: SubmitEvent) => {
    if (code.ready || !(event.target instanceof HTMLFormElement)) return;
    const form = event.target;
    event.preventDefault();
    stopWaiting();
    stopWaiting = code.whenHydrated(() => form.requestSubmit());
    // Without its code the form is the plain HTML one, which the server answers as it does without JavaScript.
    code.load().catch(() => {
      stopWaiting();
      form.submit();
    });
  };
  holder.addEventListener("submit", holdEarlySubmit, { capture: true });
  return () => {
    stopWatching();
    stopWaiting();
    holder.removeEventListener("submit", holdEarlySubmit, { capture: true });
  };
}
