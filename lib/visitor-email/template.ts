import type { ReactElement } from "react";
import { type RenderedEmail, renderEmail } from "./render";

/**
 * Emails rendered once per shape, then filled in per message. Rendering an email (React, then the
 * plain text parsed back from its HTML) cost about as much CPU as sending it, and most of it is
 * the same for every visitor: only a few strings (a reference, an address, a link) change. So each
 * shape is rendered once with a placeholder in each of those string props, and each message is
 * that rendering with the placeholders replaced by its values: byte for byte what rendering the
 * message itself gives, which the tests check against `renderEmail`.
 *
 * A value is put in a placeholder only when doing so cannot change anything else in the output:
 * it is plain (letters, digits and the few symbols of addresses, links and sizes; single spaces
 * between words), so neither React nor the plain-text conversion escapes or reflows it. Any other
 * value, or an empty one, is rendered in full, as is a shape whose placeholders do not come out
 * whole.
 */

/** Nothing React or html-to-text escapes, decodes or collapses: `&<>"'`, whitespace runs and edges excluded. */
const PLAIN_VALUE = /^[A-Za-z0-9@._+\-:/?=%~,()]+(?: [A-Za-z0-9@._+\-:/?=%~,()]+)*$/;

/** Placeholders are runs of one private-use character per slot, which no plain value contains. */
const PLACEHOLDER_BASE = 0xe000;
const ANY_PLACEHOLDER = /[\ue000-\ue0ff]/;

/** Shapes kept per email; the oldest goes first past this (a shape is cheap to render again). */
const MAX_SHAPES = 128;

interface Shape {
  /** The rendering with placeholders, split at them: `parts[0] slot parts[1] slot …`. */
  html: Filled;
  text: Filled;
}

/** A rendered body split at its placeholders, and which slot goes after each part. */
interface Filled {
  parts: string[];
  slots: number[];
}

type StringKeys<P> = { [K in keyof P]: P[K] extends string ? K : never }[keyof P] & string;

/**
 * `render(props)` as `renderEmail(component(props))` would give it, rendered once per shape: the
 * props other than `slots`, and the length of each slot's value (a preview, for one, pads itself
 * to a length that depends on its text).
 */
export function emailTemplate<P extends object, S extends StringKeys<P>>(
  component: (props: P) => ReactElement,
  slots: readonly S[],
): (props: P) => Promise<RenderedEmail> {
  const shapes = new Map<string, Promise<Shape | null>>();

  const shapeOf = (props: P, values: readonly string[]): Promise<Shape | null> => {
    const fixed = Object.entries(props).filter(([key]) => !(slots as readonly string[]).includes(key));
    const key = JSON.stringify([fixed, values.map((value) => value.length)]);
    let shape = shapes.get(key);
    if (!shape) {
      const placeholders = values.map((value, slot) =>
        String.fromCharCode(PLACEHOLDER_BASE + slot).repeat(value.length),
      );
      const withPlaceholders = { ...props } as Record<string, unknown>;
      slots.forEach((name, slot) => (withPlaceholders[name] = placeholders[slot]));
      shape = renderEmail(component(withPlaceholders as P)).then((email) => split(email, placeholders));
      // A failed rendering is not kept: the next message tries again.
      shape.catch(() => shapes.delete(key));
      if (shapes.size >= MAX_SHAPES) shapes.delete(shapes.keys().next().value as string);
      shapes.set(key, shape);
    }
    return shape;
  };

  return async (props: P): Promise<RenderedEmail> => {
    const values = slots.map((name) => props[name] as string);
    if (slots.length === 0 || !values.every((value) => PLAIN_VALUE.test(value))) {
      return renderEmail(component(props));
    }
    const shape = await shapeOf(props, values);
    if (!shape) return renderEmail(component(props));
    return { html: fill(shape.html, values), text: fill(shape.text, values) };
  };
}

/** Splits both bodies at the placeholders; `null` when one came out cut or changed. */
function split(email: RenderedEmail, placeholders: readonly string[]): Shape | null {
  const html = splitAt(email.html, placeholders);
  const text = splitAt(email.text, placeholders);
  return html && text ? { html, text } : null;
}

function splitAt(body: string, placeholders: readonly string[]): Filled | null {
  const parts: string[] = [];
  const slots: number[] = [];
  let rest = body;
  for (;;) {
    const next = firstPlaceholder(rest, placeholders);
    if (!next) break;
    parts.push(rest.slice(0, next.at));
    slots.push(next.slot);
    rest = rest.slice(next.at + (placeholders[next.slot] as string).length);
  }
  parts.push(rest);
  // Whatever is left of a placeholder (cut short, or run into another) would reach the visitor.
  return parts.some((part) => ANY_PLACEHOLDER.test(part)) ? null : { parts, slots };
}

function firstPlaceholder(
  body: string,
  placeholders: readonly string[],
): { at: number; slot: number } | null {
  let first: { at: number; slot: number } | null = null;
  placeholders.forEach((placeholder, slot) => {
    const at = body.indexOf(placeholder);
    if (at !== -1 && (first === null || at < first.at)) first = { at, slot };
  });
  return first;
}

function fill({ parts, slots }: Filled, values: readonly string[]): string {
  let out = parts[0] as string;
  for (let index = 0; index < slots.length; index++) {
    out += (values[slots[index] as number] as string) + (parts[index + 1] as string);
  }
  return out;
}
