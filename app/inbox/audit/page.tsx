import { InboxShell } from "@/components/inbox/shell";
import { AUDIT_PAGE_SIZE, auditTargetText, readAudit, utcTime } from "@/lib/ops";
import { requirePageSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

/** /inbox/audit: who did what, newest first. */
export default async function AuditPage() {
  const { services, actor } = await requirePageSession("/inbox/audit", getServices);
  const entries = await readAudit(services.store);
  return (
    <InboxShell actor={actor} current="audit">
      <h1 className="text-xl font-bold tracking-tight text-ink">Audit log</h1>
      <p className="mt-1 text-sm text-muted">
        The latest {AUDIT_PAGE_SIZE} events, newest first (all are kept under <code>audit/</code> in the
        inbox).
      </p>
      <div className="mt-3 overflow-x-auto rounded border border-slate-200 bg-white">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Audit log</caption>
          <thead className="border-b border-slate-200 bg-slate-50 text-xs text-muted">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                When (UTC)
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
                <td className="whitespace-nowrap px-3 py-1.5 tabular-nums">{utcTime(entry.at, true)}</td>
                <td className="px-3 py-1.5">{entry.actor}</td>
                <td className="px-3 py-1.5 font-medium">{entry.action}</td>
                <td className="break-all px-3 py-1.5 font-mono text-xs">{auditTargetText(entry.target)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {entries.length === 0 ? <p className="px-3 py-4 text-sm text-muted">Nothing recorded yet.</p> : null}
      </div>
    </InboxShell>
  );
}
