/**
 * A stand-in for Cloudflare's widget script (https://challenges.cloudflare.com/turnstile/v0/api.js),
 * served by the browser tests in its place (page.route), so the forms' real widget component runs
 * against it. It implements the `window.turnstile` calls that @marsidev/react-turnstile makes
 * (render, reset, remove, getResponse, isExpired, execute, ready) and calls the `onload` callback
 * the component names in the script's URL, as the real script does.
 *
 * Each widget is a checkbox, "Verify you are human"; ticking it issues a token and calls the
 * render's `callback`. A token reads `<outcome>.<action>.<id>`: the siteverify stand-in answers by
 * it (tests/support/siteverify-standin.ts). The outcome is the next of `window.__fakeTurnstile.outcomes`
 * (set by a test to e.g. ["fail"]), else "pass". `window.__fakeTurnstile` also counts renders and
 * resets, for the tests to read.
 */
(() => {
  const state = (window.__fakeTurnstile = Object.assign(
    { outcomes: [], renders: 0, resets: 0, tokens: [] },
    window.__fakeTurnstile,
  ));
  const widgets = new Map();
  let count = 0;

  const element = (container) =>
    typeof container === "string" ? document.querySelector(container) : container;

  function draw(id) {
    const widget = widgets.get(id);
    widget.token = undefined;
    const label = document.createElement("label");
    label.style.display = "inline-flex";
    label.style.gap = "8px";
    label.style.alignItems = "center";
    const box = document.createElement("input");
    box.type = "checkbox";
    const text = document.createElement("span");
    text.textContent = "Verify you are human";
    label.append(box, text);
    box.addEventListener("change", () => {
      if (widget.token !== undefined) {
        box.checked = true; // done once; a second press changes nothing
        return;
      }
      if (!box.checked) return;
      // Not `disabled`: disabling the focused box would drop focus to the page, which the real
      // widget (a frame that keeps focus) never does, and a Tab would then start from the top.
      box.setAttribute("aria-disabled", "true");
      const outcome = state.outcomes.shift() ?? "pass";
      widget.token = `${outcome}.${widget.params.action ?? ""}.fake-${id}-${Date.now()}`;
      state.tokens.push(widget.token);
      text.textContent = "Success!";
      widget.params.callback?.(widget.token);
    });
    widget.container.replaceChildren(label);
  }

  window.turnstile = {
    ready(callback) {
      callback();
    },
    render(container, params = {}) {
      count += 1;
      const id = `fake-widget-${count}`;
      widgets.set(id, { container: element(container), params, token: undefined });
      state.renders += 1;
      draw(id);
      return id;
    },
    reset(id) {
      if (!widgets.has(id)) return;
      state.resets += 1;
      draw(id);
    },
    remove(id) {
      const widget = widgets.get(id);
      if (!widget) return;
      widget.container.replaceChildren();
      widgets.delete(id);
    },
    getResponse(id) {
      return widgets.get(id)?.token;
    },
    isExpired() {
      return false;
    },
    execute() {},
  };

  const onload = new URL(document.currentScript.src).searchParams.get("onload");
  if (onload && typeof window[onload] === "function") window[onload]();
})();
