import { notFound } from "next/navigation";
import { Address, BriefRows, StatusBadge } from "@/components/inbox/brief-list";
import {
  BriefSteps,
  Field,
  type Neighbour,
  NotesSection,
  Section,
  SpamSection,
  StatusSection,
} from "@/components/inbox/brief-sections";
import { DeliveryDetails } from "@/components/inbox/delivery";
import { BriefAttribution, SpamCaughtBy } from "@/components/inbox/brief-origin";
import { errorText } from "@/components/inbox/forms";
import { focusRing, InboxShell, Notice } from "@/components/inbox/shell";
import { LocalTime } from "@/components/inbox/time";
import { formatBytes, visibleText } from "@/lib/format";
import type { ObjectStore } from "@/lib/store";
import type { ChannelName } from "@/lib/notify";
import {
  attachmentStart,
  type BriefFilter,
  budgetLabel,
  filterQuery,
  findBrief,
  listAroundBrief,
  type ListNeighbour,
  parseFilter,
  projectTypeLabel,
  type StoredBrief,
  timelineLabel,
  verificationLabel,
} from "@/lib/ops";
import { pathWithQuery, requirePageSession } from "@/lib/ops-web/gate";
import { parseReference } from "@/lib/reference";
import { getServices } from "@/lib/services";

type Query = Record<string, string | string[] | undefined>;

const DONE: Record<string, string> = {
  saved: "Status saved.",
  noted: "Note added.",
  redelivered: "Sent again: every channel delivered.",
  "still-failing": "Sent again, but a channel still fails: see Notifications.",
  "not-sent":
    "Nothing was sent: that channel is not configured on this server, or an attempt at it is already under way.",
  moved: "Moved to the inbox as new, and the channels were notified.",
};

/** How much of a text attachment the page shows. */
const TEXT_PREVIEW_BYTES = 64 * 1024;

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

/**
 * The list the brief was opened from (`listAroundBrief`): the page of it to show beside the brief,
 * and the briefs before and after this one, each linked with the list's query and its own page.
 */
async function listAround(
  store: ObjectStore,
  brief: StoredBrief,
  filter: BriefFilter,
  askedPage: number | null,
) {
  const around = await listAroundBrief(store, brief, filter, askedPage);
  const query = (onPage: number) => {
    const kept = filterQuery(filter);
    if (onPage > 1) kept.set("page", String(onPage));
    return kept.toString();
  };
  const neighbour = (near: ListNeighbour | null): Neighbour => {
    if (!near) return null;
    const kept = query(near.page);
    return {
      reference: near.brief.reference,
      name: visibleText(near.brief.name),
      href: `/inbox/${near.brief.reference}${kept ? `?${kept}` : ""}`,
    };
  };
  return {
    briefs: around.briefs,
    pending: around.pending,
    query: query(around.page),
    previous: neighbour(around.previous),
    next: neighbour(around.next),
  };
}

/**
 * /inbox/<reference>: every field, the attachment, the notifications, the status and the notes.
 * The brief comes first in the page's order: the skip link lands on its heading, past the steps
 * through the list, so the next Tab is its first control (a status, or "Not spam"); the list it
 * was opened from follows, beside it on a wide screen (placed there by the grid, read after it).
 */
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
  const filter = { ...parseFilter(query), ...(spam ? { status: null, delivery: null } : {}) };
  const askedPage = Number(query.page) >= 1 ? Math.floor(Number(query.page)) : null;
  const list = await listAround(services.store, brief, filter, askedPage);
  const api = `/api/ops/briefs/${record.reference}`;
  const download = `/inbox/${record.reference}/attachment`;
  const done = typeof query.done === "string" ? DONE[query.done] : undefined;
  const failed = errorText(query);
  const listHref = `${spam ? "/inbox/spam" : "/inbox"}${list.query ? `?${list.query}` : ""}`;
  // The page's forms name the list, so their answer comes back to this page with it.
  const act = (action: string) =>
    `${api}/${action}${list.query ? `?list=${encodeURIComponent(list.query)}` : ""}`;
  const pageHref = (again: ChannelName | null) => {
    const kept = new URLSearchParams(list.query);
    if (again) kept.set("again", again);
    const search = kept.size > 0 ? `?${kept.toString()}` : "";
    return `/inbox/${record.reference}${search}${again ? "#send-again" : "#section-Notifications"}`;
  };

  return (
    <InboxShell
      siteName={services.config.siteName}
      actor={actor}
      current={spam ? "spam" : "inbox"}
      skipTo="brief"
    >
      <div className="grid grid-cols-1 gap-5 lg:grid-cols-[22rem_minmax(0,1fr)]">
        <article
          data-open-brief={spam ? undefined : record.reference}
          aria-labelledby="brief-title"
          className="flex min-w-0 flex-col gap-4 lg:col-start-2 lg:row-start-1"
        >
          <BriefSteps listHref={listHref} previous={list.previous} next={list.next} />
          {done ? <Notice tone="success">{done}</Notice> : null}
          {failed ? <Notice tone="danger">{failed}</Notice> : null}
          {/* Where "Skip to content" lands: past the steps through the list, so the next Tab is the
              brief's first control. */}
          <header id="brief" tabIndex={-1} className="flex flex-wrap items-center gap-3 focus:outline-none">
            <h1 id="brief-title" className="text-xl font-bold tracking-tight text-ink">
              {visibleText(record.name)}
              {record.company ? (
                <span className="font-normal text-muted"> · {visibleText(record.company)}</span>
              ) : null}
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
            <SpamSection
              act={(action) => `${api}/${action}`}
              why={<SpamCaughtBy verdict={record.spam ?? { reason: "honeypot" }} />}
            />
          ) : (
            <StatusSection act={act} status={state.status} />
          )}

          <Section title="Brief">
            <dl className="divide-y divide-slate-100">
              <Field label="Reference">
                <span className="font-mono">{record.reference}</span>
              </Field>
              <Field label="Received">
                <LocalTime iso={record.receivedAt} seconds />
              </Field>
              <Field label="Email">
                <a
                  href={`mailto:${record.email}`}
                  className={`text-accent hover:text-accent-strong ${focusRing}`}
                >
                  <Address email={record.email} />
                </a>
              </Field>
              <Field label="Role">{record.role === null ? "—" : visibleText(record.role)}</Field>
              <Field label="Project type">{projectTypeLabel(record.projectType)}</Field>
              <Field label="Budget">{budgetLabel(record.budget)}</Field>
              <Field label="Timeline">{timelineLabel(record.timeline)}</Field>
              <Field label="Human check">{verificationLabel(record.verification)}</Field>
            </dl>
            <h3 className="mt-3 text-sm font-medium text-muted">About the project</h3>
            <p className="mt-1 whitespace-pre-wrap break-words text-sm text-ink">
              {visibleText(record.description)}
            </p>
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
                  className={`mt-2 inline-block rounded border border-slate-300 bg-white px-2.5 py-1 text-sm font-medium text-ink hover:bg-slate-50 ${focusRing}`}
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
              <DeliveryDetails
                delivery={brief.delivery}
                act={act}
                again={typeof query.again === "string" ? query.again : null}
                pageHref={pageHref}
              />
            </Section>
          )}

          {spam ? null : <NotesSection act={act} notes={state.notes} />}
        </article>

        <nav aria-label={spam ? "Spam" : "Briefs"} className="min-w-0 lg:col-start-1 lg:row-start-1">
          <BriefRows
            briefs={list.briefs}
            query={list.query}
            openReference={record.reference}
            empty="No brief matches."
            spam={spam}
            pending={list.pending}
          />
        </nav>
      </div>
    </InboxShell>
  );
}
