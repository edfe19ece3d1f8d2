export const USAGE = `Usage: npm run -s inbox -- <command> [options]

Reads the intake inbox with the app's own configuration: INBOX_DIR, or the Vercel Blob store
when BLOB_READ_WRITE_TOKEN is set; redeliver uses WEBHOOK_* and SMTP_URL/EMAIL_* as the app does.

Commands:
  list [--since YYYY-MM-DD] [--delivery retrying|failed] [--json]
      Briefs, newest first: a table, or a JSON array. --delivery: only those with a channel
      retrying on the schedule, or one that gave up (read from the due and failed records).
  show <reference> [--json]
      One brief in full, with its attachment and delivery record.
  attachment <reference> [--out PATH] [--force]
      Saves the brief's file (default: its original name, in the current folder; "-" writes to
      stdout), after checking it against the SHA-256 in brief.json. Never overwrites without --force.
  export --format csv|json [--since YYYY-MM-DD] [--out FILE] [--force]
      Every brief, one row each, to stdout or FILE. Progress goes to stderr.
  subscribers [--status confirmed|pending|unsubscribed|all] [--json | --csv]
      Newsletter subscribers with their status and topics, newest first: by default only the
      confirmed ones, who get the newsletter (the table says how many others there are).
  redeliver <reference> | --failed [--since YYYY-MM-DD] [--acknowledgment]
      Sends a brief again through the channels recorded as failed (--failed: every brief with a
      failed or missing delivery record), and updates delivery.json. Spam is never redelivered.
      --acknowledgment also resends the sender's acknowledgment when it is recorded as failed
      (never one that was sent, nor one held back by the 10-minute window or verification).
  spam [--since YYYY-MM-DD] [--json]
      What the honeypot caught, as list shows briefs.
  status <reference> new|handled|archived [--by NAME]
      Sets a brief's status (state.json beside brief.json, written with a conditional write).
  note <reference> "<text>" [--by NAME]
      Adds a note to a brief.
  erase <address> [--confirm <address>] [--by NAME]
      Shows how many briefs, spam entries and subscriber records come from the address; with
      --confirm and the same address typed again, removes every file of them (right to erasure).
  person <address> [--erase] [--by NAME]
      Prints what the inbox holds about the address as JSON (right of access): its briefs and
      spam entries with their state and delivery records (attachments by name, size and SHA-256,
      never their bytes) and its subscriber record. --erase then removes all of it, as erase does.
  audit [--limit N] [--json]
      The audit log, newest first (sign-ins, downloads, exports, status, notes, erasures...).
  gc [--dry-run]
      Removes files uploaded ahead of a form (Blob inbox, staging/) that no brief claimed within
      an hour, and the inbox on the web's expired sessions and spent sign-in links (kept in the
      store without Redis); the briefs and spam entries received more than RETENTION_DAYS days ago
      (unset: kept forever); and subscriptions still pending after 7 days. --dry-run only lists them.
  reindex
      Deletes the inbox on the web's list index (index/) and rebuilds it from the briefs and the
      subscribers: after files under briefs/, spam/ or newsletter/ were changed by hand, which the
      index does not see.

status, note, erase, person and gc's erasures are recorded in the audit log as --by, else as ops-tool:<your user name>.
A reference may be typed in any case, with or without dashes (k7qm3xd9ptwa84hc).
Exit status: 0 done; 1 failed (not found, damaged file, a delivery still failing, unreadable
records, the inbox unreachable); 2 wrong usage.
`;
