/**
 * The due check's SQL (docs/adr/0140-tasks.md), the follow-ups' technique (ADR 0119,
 * src/follow-ups/follow-up-query.ts CLAIM_DUE): one statement claims a batch and writes its events.
 *
 * Up to $batch open tasks whose time came and that no check announced yet, locked with SKIP LOCKED so
 * that instances claiming at once take disjoint rows, are stamped notified_at (a row another instance
 * claimed and committed meanwhile no longer matches when re-checked: READ COMMITTED re-reads the
 * locked row), and for each a task.due event goes into the outbox addressed to the assignee
 * (events.user_id), with the conversation's mailbox where it has one. Claim and event commit together:
 * the event is written exactly once, whichever instance claims it. A task done before its time is
 * never claimed (status open is part of the claim and of the row's re-check): a PATCH to done that
 * holds the row makes the check skip it, and once committed it no longer matches.
 */
export const CLAIM_DUE_TASKS = `WITH due AS (
    SELECT t.id FROM tasks t
     WHERE t.notified_at IS NULL AND t.status = 'open' AND t.due_at <= now()
     ORDER BY t.due_at LIMIT $batch
     FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE tasks t SET notified_at = now() FROM due
     WHERE t.id = due.id AND t.notified_at IS NULL AND t.status = 'open'
    RETURNING t.id, t.assignee_id, t.due_at, t.person_id, t.company_id, t.conversation_id
  ), sent AS (
    INSERT INTO events (type, email_account_id, user_id, payload)
    SELECT 'task.due', th.email_account_id, t.assignee_id,
           jsonb_build_object('taskId', t.id, 'assigneeId', t.assignee_id,
                              'dueAt', to_char(t.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                              'personId', t.person_id, 'companyId', t.company_id, 'conversationId', t.conversation_id,
                              'emailAccountId', th.email_account_id)
      FROM claimed t LEFT JOIN email_threads th ON th.id = t.conversation_id
     ORDER BY t.due_at, t.id
    RETURNING id
  )
  SELECT (SELECT count(*) FROM claimed)::int AS claimed, (SELECT count(*) FROM sent)::int AS sent`;

/** Open tasks whose time came and that no check announced yet: the job's backlog (metrics, doctor). */
export const DUE_BACKLOG = `SELECT count(*)::int AS due, extract(epoch FROM now() - min(due_at))::float8 AS oldest
  FROM tasks WHERE notified_at IS NULL AND status = 'open' AND due_at <= now()`;
