import { InboxShell } from "@/components/inbox/shell";
import { LocalTime } from "@/components/inbox/time";
import { countOf } from "@/lib/format";
import { AUDIT_PAGE_SIZE, type AuditEntry, auditTargetText, readAudit } from "@/lib/ops";
import { requirePageSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";

/** Below `md`, each event as a stacked entry: a table of four columns does not fit a phone. */
function AuditEntries({ entries }: { entries: AuditEntry[] }) {
  return (
    <ol aria-label="Audit log" className="divide-y divide-slate-100 md:hidden">
      {entries.map((entry, index) => (
        <li key={`${entry.at}-${index}`} className="px-3 py-2 text-sm">
          <p className="flex flex-wrap items-baseline justify-between gap-x-3">
            <span className="font-medium text-ink">{entry.action}</span>
            <span className="text-xs tabular-nums text-muted">
              <LocalTime iso={entry.at} seconds />
            </span>
          </p>
          <dl className="mt-0.5 grid grid-cols-[3rem_minmax(0,1fr)] gap-x-2 text-xs">
            <dt className="text-muted">Who</dt>
            <dd className="break-words text-ink">{entry.actor}</dd>
            <dt className="text-muted">On</dt>
            <dd className="break-all font-mono text-ink">{auditTargetText(entry.target) || "—"}</dd>
          </dl>
        </li>
      ))}
    </ol>
  );
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <table className="hidden w-full text-left text-sm md:table">
      <caption className="sr-only">Audit log</caption>
      <thead className="border-b border-slate-200 bg-slate-50 text-xs text-muted">
        <tr>
          <th scope="col" className="px-3 py-2 font-medium">
            When (your time zone)
          </th>
          <th scope="col" className="px-3 py-2 font-medium">
            Who
          </th>
          <th scope="col" className="px-3 py-2 font-medium">
            Action
          </th>
          <th scope="col" className="px-3 py-2 font-medium">
            On
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {entries.map((entry, index) => (
          <tr key={`${entry.at}-${index}`}>
            <td className="whitespace-nowrap px-3 py-1.5 tabular-nums">
              <LocalTime iso={entry.at} seconds />
            </td>
            <td className="px-3 py-1.5">{entry.actor}</td>
            <td className="px-3 py-1.5 font-medium">{entry.action}</td>
            <td className="break-all px-3 py-1.5 font-mono text-xs">{auditTargetText(entry.target)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** /inbox/audit: who did what, newest first; a table on a wide screen, stacked entries on a phone. */
export default async function AuditPage() {
  const { services, actor } = await requirePageSession("/inbox/audit", getServices);
  const entries = await readAudit(services.store);
  return (
    <InboxShell siteName={services.config.siteName} actor={actor} current="audit">
      <h1 className="text-xl font-bold tracking-tight text-ink">Audit log</h1>
      <p className="mt-1 text-sm text-muted">
        {entries.length < AUDIT_PAGE_SIZE
          ? `${countOf(entries.length, "event")}, newest first`
          : `The latest ${countOf(AUDIT_PAGE_SIZE, "event")}, newest first`}{" "}
        (all are kept under <code>audit/</code> in the inbox).
      </p>
      <div className="mt-3 rounded border border-slate-200 bg-white">
        <AuditEntries entries={entries} />
        <AuditTable entries={entries} />
        {entries.length === 0 ? <p className="px-3 py-4 text-sm text-muted">Nothing recorded yet.</p> : null}
      </div>
    </InboxShell>
  );
}
