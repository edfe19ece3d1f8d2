import Link from "next/link";
import { errorText } from "@/components/inbox/forms";
import { focusRing, InboxShell, Notice } from "@/components/inbox/shell";
import { planErase } from "@/lib/ops";
import { requirePageSession } from "@/lib/ops-web/gate";
import { email as emailRule } from "@/lib/schemas/text";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

type Query = Record<string, string | string[] | undefined>;

const inputClass =
  "w-full max-w-md rounded border border-slate-300 bg-white px-2 py-1.5 text-sm text-ink focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30";

const count = (value: unknown) => (typeof value === "string" && /^\d+$/.test(value) ? Number(value) : 0);

/**
 * /inbox/erase: the right to be forgotten. Ops type the address, see what matches, and type it
 * again to confirm; only the POST removes anything. The address is in this page's URL while it
 * is looked up (the inbox's pages send no Referer), never in the audit log.
 */
export default async function ErasePage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  // The address is left out of `next`: after signing in, the look-up starts again.
  const { services, actor } = await requirePageSession("/inbox/erase", getServices);
  const typed = typeof query.email === "string" ? query.email.trim() : "";
  const address = typed === "" ? null : emailRule.safeParse(typed);
  const plan = address?.success ? await planErase(services.store, address.data) : null;
  const failed = errorText(query);

  return (
    <InboxShell actor={actor} current="erase">
      <h1 className="text-xl font-bold tracking-tight text-ink">Erase an address</h1>
      <p className="mt-1 max-w-2xl text-sm text-muted">
        Removes every brief and spam entry sent from an address, with their files, and its newsletter
        subscription. It cannot be undone. The audit log keeps only a hash of the address and the counts.
      </p>
      <div className="mt-4 flex max-w-2xl flex-col gap-4">
        {query.done === "erased" ? (
          <Notice tone="success">
            Erased {count(query.briefs)} briefs, {count(query.spam)} spam entries and{" "}
            {count(query.subscribers)} subscriber records.
          </Notice>
        ) : null}
        {failed ? <Notice tone="danger">{failed}</Notice> : null}
        <form
          action="/inbox/erase"
          method="get"
          className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4"
        >
          <label htmlFor="erase-email" className="text-sm font-medium text-ink">
            Address to erase
          </label>
          <input
            id="erase-email"
            name="email"
            type="email"
            required
            defaultValue={typed}
            className={inputClass}
          />
          {address && !address.success ? (
            <p className="text-sm text-danger">Type a valid email address.</p>
          ) : null}
          <div>
            <button
              type="submit"
              className={`rounded border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-ink hover:bg-slate-50 ${focusRing}`}
            >
              Find what matches
            </button>
          </div>
        </form>

        {plan ? (
          <form
            action="/api/ops/erase"
            method="post"
            className="flex flex-col gap-2 rounded border border-red-200 bg-white p-4"
          >
            <h2 className="text-sm font-semibold text-ink">What matches {plan.email}</h2>
            <ul className="list-inside list-disc text-sm text-ink" data-testid="erase-counts">
              <li>
                {plan.briefs.length} {plan.briefs.length === 1 ? "brief" : "briefs"}
              </li>
              <li>
                {plan.spam.length} spam {plan.spam.length === 1 ? "entry" : "entries"}
              </li>
              <li>
                {plan.subscriber ? 1 : 0} subscriber {plan.subscriber ? "record" : "records"}
              </li>
            </ul>
            <input type="hidden" name="email" value={plan.email} />
            <label htmlFor="erase-confirm" className="mt-2 text-sm font-medium text-ink">
              Type the address again to confirm
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
        ) : null}
        <p className="text-sm">
          <Link href="/inbox" className={`font-medium text-accent hover:text-accent-strong ${focusRing}`}>
            Back to the inbox
          </Link>
        </p>
      </div>
    </InboxShell>
  );
}
