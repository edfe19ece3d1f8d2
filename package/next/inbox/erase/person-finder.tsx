"use client";

import { useActionState } from "react";
import { focusRing } from "@/components/inbox/shell";
import { NO_LOOKUP, type PersonLookup } from "./lookup";

const inputClass =
  "w-full max-w-md rounded border border-slate-300 bg-white px-2 py-1.5 text-sm text-ink focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30";

const plainButton = `rounded border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-ink hover:bg-slate-50 ${focusRing}`;

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/**
 * Find an address (posted to a Server Action, which also works without JavaScript), see the counts,
 * then download what the inbox holds about it or erase it: both plain form posts with the address
 * in the body.
 */
export function PersonFinder({
  find,
  initial = NO_LOOKUP,
}: {
  find: (previous: PersonLookup, form: FormData) => Promise<PersonLookup>;
  /** A look-up already made: the subscribers list links here with the subscriber's id. */
  initial?: PersonLookup;
}) {
  const [lookup, findAction, pending] = useActionState(find, initial);
  const { found } = lookup;
  return (
    <>
      <form action={findAction} className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4">
        <label htmlFor="person-email" className="text-sm font-medium text-ink">
          Address
        </label>
        <input
          id="person-email"
          name="email"
          type="email"
          required
          autoComplete="off"
          defaultValue={lookup.typed}
          className={inputClass}
        />
        {lookup.problem ? <p className="text-sm text-danger">{lookup.problem}</p> : null}
        <div>
          <button type="submit" disabled={pending} className={plainButton}>
            Find what the inbox holds
          </button>
        </div>
      </form>

      {found ? (
        <section
          aria-labelledby="person-found"
          className="flex flex-col gap-3 rounded border border-slate-200 bg-white p-4"
        >
          <h2 id="person-found" className="text-sm font-semibold text-ink">
            What the inbox holds about {found.email}
          </h2>
          <ul className="list-inside list-disc text-sm text-ink" data-testid="erase-counts">
            <li>{plural(found.briefs, "brief", "briefs")}</li>
            <li>{plural(found.spam, "spam entry", "spam entries")}</li>
            <li>{plural(found.subscribers, "subscriber record", "subscriber records")}</li>
          </ul>
          <form action="/inbox/person.json" method="post">
            <input type="hidden" name="email" value={found.email} />
            <button type="submit" className={plainButton}>
              Download (JSON)
            </button>
          </form>
          <form
            action="/api/ops/erase"
            method="post"
            className="flex flex-col gap-2 border-t border-red-200 pt-3"
          >
            <input type="hidden" name="email" value={found.email} />
            <label htmlFor="erase-confirm" className="text-sm font-medium text-ink">
              To erase, type the address again
            </label>
            <input
              id="erase-confirm"
              name="confirm"
              type="email"
              required
              autoComplete="off"
              className={inputClass}
            />
            <div>
              <button
                type="submit"
                className={`rounded bg-danger px-3 py-1.5 text-sm font-semibold text-white hover:bg-red-800 ${focusRing}`}
              >
                Erase everything from this address
              </button>
            </div>
          </form>
        </section>
      ) : null}
    </>
  );
}
