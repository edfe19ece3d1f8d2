import Link from "next/link";
import { errorText } from "@/components/inbox/forms";
import { focusRing, InboxShell, Notice } from "@/components/inbox/shell";
import { countOf } from "@/lib/format";
import { requirePageSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";
import { findPerson } from "./actions";
import { PersonFinder } from "./person-finder";

export const dynamic = "force-dynamic";

type Query = Record<string, string | string[] | undefined>;

const count = (value: unknown) => (typeof value === "string" && /^\d+$/.test(value) ? Number(value) : 0);

/**
 * /inbox/erase: a person's data. Ops find an address, see what the inbox holds about it, then
 * download it (the right of access) or erase it (the right to be forgotten, typed again to
 * confirm). The address only ever travels in POST bodies, never in this page's URL; the audit log
 * keeps only its hash.
 */
export default async function PersonDataPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const { actor } = await requirePageSession("/inbox/erase", getServices);
  const failed = errorText(query);

  return (
    <InboxShell actor={actor} current="erase">
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
        <PersonFinder find={findPerson} />
        <p className="text-sm">
          <Link href="/inbox" className={`font-medium text-accent hover:text-accent-strong ${focusRing}`}>
            Back to the inbox
          </Link>
        </p>
      </div>
    </InboxShell>
  );
}
