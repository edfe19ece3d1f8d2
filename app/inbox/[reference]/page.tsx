import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { BriefRows, StatusBadge } from "@/components/inbox/brief-list";
import { BriefAttribution, SpamCaughtBy } from "@/components/inbox/brief-origin";
import { errorText, PostButton } from "@/components/inbox/forms";
import { InboxShell, Notice } from "@/components/inbox/shell";
import { formatBytes } from "@/lib/format";
import type { ObjectStore } from "@/lib/store";
import type { AcknowledgmentOutcome } from "@/lib/briefs";
import { CHANNEL_NAMES } from "@/lib/notify";
import {
  acknowledgmentResult,
  attachmentStart,
  BRIEF_STATUSES,
  budgetLabel,
  filterQuery,
  findBrief,
  NOTE_MAX_LENGTH,
  parseFilter,
  projectTypeLabel,
  searchBriefs,
  type StoredBrief,
  timelineLabel,
  utcTime,
} from "@/lib/ops";
import { pathWithQuery, requirePageSession } from "@/lib/ops-web/gate";
import { parseReference } from "@/lib/reference";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

type Query = Record<string, string | string[] | undefined>;

const DONE: Record<string, string> = {
  saved: "Status saved.",
  noted: "Note added.",
  redelivered: "Sent again: every channel delivered.",
  "still-failing": "Sent again, but a channel still fails: see Notifications.",
  moved: "Moved to the inbox as new, and the channels were notified.",
};

/** How much of a text attachment the page shows. */
const TEXT_PREVIEW_BYTES = 64 * 1024;

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[8rem_1fr] gap-2 py-1.5 text-sm">
      <dt className="text-muted">{label}</dt>
      <dd className="min-w-0 break-words text-ink">{children}</dd>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`section-${title}`} className="rounded border border-slate-200 bg-white p-4">
      <h2 id={`section-${title}`} className="text-sm font-semibold text-ink">
        {title}
      </h2>
      <div className="mt-2">{children}</div>
    </section>
  );
}

/** The acknowledgment to the sender (`CONTACT_ACKNOWLEDGE`): not a channel, listed after them. */
function AcknowledgmentItem({ outcome }: { outcome: AcknowledgmentOutcome }) {
  const { result, reason } = acknowledgmentResult(outcome);
  const tone = { sent: "text-success", suppressed: "text-muted", failed: "text-danger" }[result];
  return (
    <li className="py-0.5">
      <span className="font-medium">Acknowledgment to the sender</span>{" "}
      <span className={tone}>
        {result}
        {reason === null ? null : `: ${reason}`}
      </span>{" "}
      <span className="text-muted">({utcTime(outcome.at, true)} UTC)</span>
    </li>
  );
}

async function AttachmentPreview({
  store,
  brief,
  href,
}: {
  store: ObjectStore;
  brief: StoredBrief;
  href: string;
}) {
  const { attachment } = brief.record;
  if (!attachment) return null;
  if (attachment.contentType === "image/png" || attachment.contentType === "image/jpeg") {
    return (
      // eslint-disable-next-line @next/next/no-img-element -- the bytes come from our own gated route, never optimised
      <img
        src={`${href}?inline`}
        alt={`The attached image, ${attachment.originalName}`}
        className="mt-3 max-h-96 rounded border border-slate-200"
      />
    );
  }
  if (attachment.contentType.startsWith("text/")) {
    const start = await attachmentStart(store, brief, TEXT_PREVIEW_BYTES);
    if (!start) return null;
    return (
      <pre
        tabIndex={0}
        aria-label="The attached text"
        className="mt-3 max-h-96 overflow-auto whitespace-pre-wrap rounded border border-slate-200 bg-slate-50 p-3 text-xs"
      >
        {Buffer.from(start.bytes).toString("utf8")}
        {start.more ? "\n…" : ""}
      </pre>
    );
  }
  return null;
}

/** /inbox/<reference>: every field, the attachment, the notifications, the status and the notes. */
export default async function BriefPage({
  params,
  searchParams,
}: {
  params: Promise<{ reference: string }>;
  searchParams: Promise<Query>;
}) {
  const [{ reference: raw }, query] = await Promise.all([params, searchParams]);
  const { services, actor } = await requirePageSession(
    pathWithQuery(`/inbox/${encodeURIComponent(raw)}`, query),
    getServices,
  );
  const reference = parseReference(raw);
  const brief = reference === null ? null : await findBrief(services.store, reference);
  if (!brief) notFound();
  const { record, state } = brief;
  const spam = brief.kind === "spam";
  const filter = { ...parseFilter(query), ...(spam ? { status: null } : {}) };
  const list = await searchBriefs(services.store, brief.kind, filter, { page: Number(query.page) || 1 });
  const kept = filterQuery(filter);
  if (list.page > 1) kept.set("page", String(list.page));
  const api = `/api/ops/briefs/${record.reference}`;
  const download = `/inbox/${record.reference}/attachment`;
  const done = typeof query.done === "string" ? DONE[query.done] : undefined;
  const failed = errorText(query);
  const listHref = `${spam ? "/inbox/spam" : "/inbox"}${kept.size > 0 ? `?${kept.toString()}` : ""}`;

  return (
    <InboxShell actor={actor} current={spam ? "spam" : "inbox"}>
      <div className="grid grid-cols-1 gap-5 lg:grid-cols-[22rem_minmax(0,1fr)]">
        <nav aria-label={spam ? "Spam" : "Briefs"} className="order-2 min-w-0 lg:order-1">
          <Link
            href={listHref}
            className="mb-2 inline-block text-sm font-medium text-accent hover:text-accent-strong"
          >
            ← Back to the list
          </Link>
          <BriefRows
            briefs={list.briefs}
            query={kept.toString()}
            openReference={record.reference}
            empty="No brief matches."
          />
        </nav>

        <article
          data-open-brief={spam ? undefined : record.reference}
          aria-labelledby="brief-title"
          className="order-1 flex min-w-0 flex-col gap-4 lg:order-2"
        >
          {done ? <Notice tone="success">{done}</Notice> : null}
          {failed ? <Notice tone="danger">{failed}</Notice> : null}
          <header className="flex flex-wrap items-center gap-3">
            <h1 id="brief-title" className="text-xl font-bold tracking-tight text-ink">
              {record.name}
              {record.company ? <span className="font-normal text-muted"> · {record.company}</span> : null}
            </h1>
            {spam ? (
              <span className="rounded bg-amber-50 px-1.5 py-0.5 text-xs font-medium text-amber-900 ring-1 ring-amber-200">
                spam
              </span>
            ) : (
              <StatusBadge status={state.status} />
            )}
          </header>

          {spam ? (
            <Section title="Spam">
              <SpamCaughtBy verdict={record.spam ?? { reason: "honeypot" }} />
              <p className="mt-1 text-sm text-muted">
                Nobody was notified. If this is a real brief, move it to the inbox: it becomes new and the
                channels are told, as for a brief just received.
              </p>
              <div className="mt-3">
                <PostButton action={`${api}/not-spam`} tone="primary">
                  Not spam
                </PostButton>
              </div>
            </Section>
          ) : (
            <Section title="Status">
              <div className="flex flex-wrap items-center gap-2">
                {BRIEF_STATUSES.map((status) => (
                  <PostButton
                    key={status}
                    action={`${api}/status`}
                    name="status"
                    value={status}
                    pressed={state.status === status}
                    tone={state.status === status ? "primary" : "plain"}
                  >
                    {status === "new" ? "New" : status === "handled" ? "Handled" : "Archived"}
                  </PostButton>
                ))}
              </div>
            </Section>
          )}

          <Section title="Brief">
            <dl className="divide-y divide-slate-100">
              <Field label="Reference">
                <span className="font-mono">{record.reference}</span>
              </Field>
              <Field label="Received">{utcTime(record.receivedAt, true)} UTC</Field>
              <Field label="Email">
                <a href={`mailto:${record.email}`} className="text-accent hover:text-accent-strong">
                  {record.email}
                </a>
              </Field>
              <Field label="Role">{record.role ?? "—"}</Field>
              <Field label="Project type">{projectTypeLabel(record.projectType)}</Field>
              <Field label="Budget">{budgetLabel(record.budget)}</Field>
              <Field label="Timeline">{timelineLabel(record.timeline)}</Field>
              <Field label="Human check">{record.verification}</Field>
            </dl>
            <h3 className="mt-3 text-sm font-medium text-muted">About the project</h3>
            <p className="mt-1 whitespace-pre-wrap break-words text-sm text-ink">{record.description}</p>
          </Section>

          <BriefAttribution attribution={record.attribution} />

          <Section title="Attachment">
            {record.attachment ? (
              <>
                <p className="text-sm text-ink">
                  <span className="break-all font-medium">{record.attachment.originalName}</span>{" "}
                  <span className="text-muted">
                    ({record.attachment.contentType}, {formatBytes(record.attachment.size)})
                  </span>
                </p>
                <a
                  href={download}
                  download
                  className="mt-2 inline-block rounded border border-slate-300 bg-white px-2.5 py-1 text-sm font-medium text-ink hover:bg-slate-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
                >
                  Download the attachment
                </a>
                <AttachmentPreview store={services.store} brief={brief} href={download} />
              </>
            ) : (
              <p className="text-sm text-muted">None.</p>
            )}
          </Section>

          {spam ? null : (
            <Section title="Notifications">
              {brief.delivery === null ? (
                <p className="text-sm text-muted">
                  Pending: no outcome recorded (the notifications never finished, or are still running).
                </p>
              ) : (
                <ul className="text-sm">
                  {CHANNEL_NAMES.filter((name) => brief.delivery?.[name]).map((name) => {
                    const outcome = brief.delivery?.[name];
                    return (
                      <li key={name} className="py-0.5">
                        <span className="font-medium">{name}</span>{" "}
                        {outcome?.ok ? (
                          <span className="text-success">delivered</span>
                        ) : (
                          <span className="text-danger">
                            failed: {outcome?.error ?? "no reason recorded"}
                          </span>
                        )}{" "}
                        <span className="text-muted">({utcTime(outcome?.at ?? "", true)} UTC)</span>
                      </li>
                    );
                  })}
                  {CHANNEL_NAMES.every((name) => !brief.delivery?.[name]) ? (
                    <li className="text-muted">No channel was configured.</li>
                  ) : null}
                  {brief.delivery.acknowledgment ? (
                    <AcknowledgmentItem outcome={brief.delivery.acknowledgment} />
                  ) : null}
                </ul>
              )}
              <div className="mt-3">
                <PostButton action={`${api}/redeliver`}>Redeliver</PostButton>
              </div>
            </Section>
          )}

          {spam ? null : (
            <Section title="Notes">
              {state.notes.length === 0 ? (
                <p className="text-sm text-muted">No notes yet.</p>
              ) : (
                <ol className="flex flex-col gap-2">
                  {state.notes.map((note, index) => (
                    <li key={`${note.at}-${index}`} className="rounded bg-slate-50 px-3 py-2 text-sm">
                      <p className="text-xs text-muted">
                        {note.by} · {utcTime(note.at)} UTC
                      </p>
                      <p className="mt-0.5 whitespace-pre-wrap break-words text-ink">{note.text}</p>
                    </li>
                  ))}
                </ol>
              )}
              <form action={`${api}/notes`} method="post" className="mt-3 flex flex-col gap-2">
                <label htmlFor="note-text" className="text-sm font-medium text-ink">
                  Add a note
                </label>
                <textarea
                  id="note-text"
                  name="text"
                  required
                  maxLength={NOTE_MAX_LENGTH}
                  rows={3}
                  className="w-full rounded border border-slate-300 px-2 py-1.5 text-sm focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30"
                />
                <div>
                  <button
                    type="submit"
                    className="rounded bg-accent px-3 py-1.5 text-sm font-semibold text-white hover:bg-accent-strong focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
                  >
                    Save note
                  </button>
                </div>
              </form>
            </Section>
          )}
        </article>
      </div>
    </InboxShell>
  );
}
