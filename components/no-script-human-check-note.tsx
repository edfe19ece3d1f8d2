/*
 * A server component, apart from `human-check.tsx` (client code): a page that shows this note must
 * not load the human check's code for it.
 */

/**
 * Why a form sent without JavaScript came back refused by the human check: shown only by a browser
 * with JavaScript off, on the page a refused no-JS post returns to (a prerendered page cannot know
 * whether the check is on before the form is sent).
 */
export function NoScriptHumanCheckNote() {
  return (
    <noscript>
      <p className="mt-4 text-sm font-medium text-danger">
        This check needs JavaScript, which is off in this browser: turn it on to send the form.
      </p>
    </noscript>
  );
}
