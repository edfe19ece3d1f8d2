import Link from "next/link";
import { errorText } from "@/components/inbox/forms";
import { focusRing, InboxShell, Notice } from "@/components/inbox/shell";
import { countOf } from "@/lib/format";
import { isSubscriberId, readSubscriber } from "@/lib/newsletter/subscribers";
import { pathWithQuery, requirePageSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";
import type { ObjectStore } from "@/lib/store";
import { findPerson } from "./erase/actions";
import { lookUpPerson } from "./erase/find";
import type { PersonLookup } from "./erase/lookup";
import { PersonFinder } from "./erase/person-finder";

type Query = Record<string, string | string[] | undefined>;

/**
 * `?subscriber=<id>` (from the subscribers list): the look-up of that subscriber's address, made
 * already. The URL holds the address's SHA-256, as the audit log does, never the address.
 */
async function subscriberLookup(store: ObjectStore, id: unknown): Promise<PersonLookup | undefined> {
  if (typeof id !== "string" || !isSubscriberId(id)) return undefined;
  const record = await readSubscriber(store, id).catch(() => null);
  if (record === null)
    return { typed: "", problem: "That subscriber is no longer in the inbox.", found: null };
  return lookUpPerson(store, record.email);
}

const count = (value: unknown) => (typeof value === "string" && /^\d+$/.test(value) ? Number(value) : 0);

/**
 * /inbox/erase: a person's data. Ops find an address, see what the inbox holds about it, then
 * download it (the right of access) or erase it (the right to be forgotten, typed again to
 * confirm). The address only ever travels in POST bodies, never in this page's URL; the audit log
 * keeps only its hash.
 */
export default async function PersonDataPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const { services, actor } = await requirePageSession(pathWithQuery("/inbox/erase", query), getServices);
  const failed = errorText(query);
  const initial = await subscriberLookup(services.store, query.subscriber);

  return (
    <InboxShell siteName={services.config.siteName} actor={actor} current="erase">
      <h1 className="text-xl font-bold tracking-tight text-ink">A person&apos;s data</h1>
      <p className="mt-1 max-w-2xl text-sm text-muted">
        Find what the inbox holds about an address: its briefs and spam entries, with their files, and its
        newsletter subscription. Download it as JSON for someone who asks to see it, or erase all of it for
        someone who asks to be forgotten (that cannot be undone). The audit log keeps only a hash of the
        address.
      </p>
      <div className="mt-4 flex max-w-2xl flex-col gap-4">
        {query.done === "erased" ? (
          <Notice tone="success">
            Erased {countOf(count(query.briefs), "brief")},{" "}
            {countOf(count(query.spam), "spam entry", "spam entries")} and{" "}
            {countOf(count(query.subscribers), "subscriber record")}.
          </Notice>
        ) : null}
        {failed ? <Notice tone="danger">{failed}</Notice> : null}
        <PersonFinder find={findPerson} initial={initial} />
        <p className="text-sm">
          <Link href="/inbox" className={`font-medium text-accent hover:text-accent-strong ${focusRing}`}>
            Back to the inbox
          </Link>
        </p>
      </div>
    </InboxShell>
  );
}
