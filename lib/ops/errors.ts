/** A command that could not do what was asked (not found, checksum mismatch...): exit code 1. */
export class OpsError extends Error {
  override name = "OpsError";
}

/** Something in the inbox that is not what the service writes (edited by hand, say). */
export class InboxRecordError extends OpsError {
  override name = "InboxRecordError";
}
