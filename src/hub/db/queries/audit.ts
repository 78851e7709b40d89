// The audit log: one row per state change (who, when, what, on what, from which client).
import type { HubDb } from '../schema';

/** Who made a change and through what. */
export type AuditActor = {
  /** Account name, or `os:<user>@<host>` for the CLI on the hub's machine. */
  actor: string;
  /** The account's id when the actor is an account. */
  actorUserId: number | null;
  /** `cli`, `web`, `app`. */
  client: string;
  /** The client's network address and user agent (HTTP requests), kept in `details`. */
  address?: string | null;
  userAgent?: string | null;
};

/** One change to record. */
export type AuditEntry = AuditActor & {
  action: string;
  target: string | null;
  /** The change itself; never a password or token. */
  details?: Record<string, unknown>;
};

/** An audit row as read. */
export type AuditRecord = Required<Omit<AuditEntry, 'address' | 'userAgent'>> & {
  id: number;
  atMs: number;
};

/** The audit_log row of an entry (writeAudit, or a statement that writes it with others). */
export function auditRow(entry: AuditEntry) {
  return {
    actor: entry.actor,
    actor_user_id: entry.actorUserId,
    action: entry.action,
    target: entry.target,
    client: entry.client,
    details: JSON.stringify({
      ...(entry.details ?? {}),
      ...(entry.address !== undefined ? { address: entry.address } : {}),
      ...(entry.userAgent !== undefined ? { userAgent: entry.userAgent } : {}),
    }),
  };
}

/** Appends one entry to the audit log. */
export async function writeAudit(db: HubDb, entry: AuditEntry): Promise<void> {
  await db.insertInto('audit_log').values(auditRow(entry)).execute();
}

/** The newest audit entries, newest first: by `actor` (exactly) and `action` (exactly, or
 * every action of a domain: `token` is token.create and token.revoke); `beforeId` pages back
 * (entries older than that id). */
export async function listAudit(
  db: HubDb,
  options: { limit?: number; actor?: string; action?: string; beforeId?: number } = {},
): Promise<AuditRecord[]> {
  const { actor, action } = options;
  let query = db.selectFrom('audit_log').selectAll();
  if (actor !== undefined) {
    query = query.where('actor', '=', actor);
  }
  if (options.beforeId !== undefined) {
    query = query.where('id', '<', options.beforeId);
  }
  if (action !== undefined) {
    const domain = `${action.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`;
    query = query.where((eb) => eb.or([eb('action', '=', action), eb('action', 'like', domain)]));
  }
  const rows = await query
    .orderBy('id', 'desc')
    .limit(options.limit ?? 100)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    atMs: r.at.getTime(),
    actor: r.actor,
    actorUserId: r.actor_user_id,
    action: r.action,
    target: r.target,
    client: r.client,
    details: r.details,
  }));
}
