import type { QueryInterface, Transaction } from 'sequelize';

/**
 * Tasks (issue 46, docs/adr/0140-tasks.md): a to-do with a title, a due time and an assignee, linked
 * to at most one person, company or conversation.
 *
 * - id: random (gen_random_uuid), not time-ordered: an id tells nothing of when it was made.
 * - assignee_id: NOT NULL, a task is always someone's. created_by: NULL once its creator was deleted.
 *   Deleting a user (users_tasks_hand_back, before the row goes): the tasks others gave them go back
 *   to their creator; what is left assigned to them (their own, or a deleted creator's) goes with them
 *   (ON DELETE CASCADE), and the tasks they gave others stay with those others (created_by SET NULL).
 * - person_id, company_id, conversation_id: at most one (CHECK). A linked record that goes (a person
 *   whose last address went, a company or a thread deleted, an account removed) leaves the task
 *   without its link (SET NULL), never takes it along: it is the assignee's work. An erasure deletes
 *   the tasks of the erased person itself (src/privacy/erasure-repository.ts).
 * - A merge of people moves the sources' tasks to the target (person_emails_tasks_follow, statement
 *   level, in the merge's transaction before the sources are deleted), so no merge unlinks a task.
 * - notified_at: the due job's claim (src/tasks/task-due-job.ts), as follow_ups.notified_at: NULL
 *   until a check announced it; a new due_at clears it. The partial index holds only open, unclaimed
 *   tasks, so the check's look-up stays small however many old tasks are kept.
 * - completed_at: set exactly while status is done (CHECK).
 *
 * A new empty table, indexes and triggers on it and on person_emails and users: no rewrite, short locks.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const path = `${quoteIdent(await scalar(qi, 'SELECT current_schema() AS value', transaction))}, pg_temp`;
    await qi.sequelize.query(upSql(path), { transaction });
  });
}

const upSql = (path: string) => `
    CREATE TABLE tasks (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      title text NOT NULL CONSTRAINT tasks_title_check CHECK (char_length(title) BETWEEN 1 AND 500),
      due_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'open' CONSTRAINT tasks_status_check CHECK (status IN ('open', 'done')),
      completed_at timestamptz,
      assignee_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      person_id uuid REFERENCES people(id) ON DELETE SET NULL,
      company_id uuid REFERENCES companies(id) ON DELETE SET NULL,
      conversation_id uuid REFERENCES email_threads(id) ON DELETE SET NULL,
      notified_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT tasks_one_link_check CHECK (num_nonnulls(person_id, company_id, conversation_id) <= 1),
      CONSTRAINT tasks_completed_check CHECK ((status = 'done') = (completed_at IS NOT NULL))
    );
    -- The assignee's list (GET /api/tasks?assignee=me&status=) in due order.
    CREATE INDEX tasks_assignee_idx ON tasks (assignee_id, status, due_at, id);
    -- What the caller gave others, and the creator's side of a user's deletion.
    CREATE INDEX tasks_creator_idx ON tasks (created_by, due_at, id) WHERE created_by IS NOT NULL;
    -- The timelines and the links' SET NULL.
    CREATE INDEX tasks_person_idx ON tasks (person_id) WHERE person_id IS NOT NULL;
    CREATE INDEX tasks_company_idx ON tasks (company_id) WHERE company_id IS NOT NULL;
    CREATE INDEX tasks_conversation_idx ON tasks (conversation_id) WHERE conversation_id IS NOT NULL;
    -- The due job: open tasks no check announced yet, in due order.
    CREATE INDEX tasks_pending_due_idx ON tasks (due_at) WHERE notified_at IS NULL AND status = 'open';

    -- A merge moves addresses to the target person (src/people/person-repository.ts, merge) and then
    -- deletes the sources: their tasks follow the addresses first, in the same statement's trigger.
    CREATE FUNCTION crm_tasks_follow_person() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      UPDATE tasks t SET person_id = m.target, updated_at = now()
        FROM (SELECT DISTINCT o.person_id AS source, n.person_id AS target
                FROM moved_from o JOIN moved_to n ON n.email = o.email
               WHERE o.person_id <> n.person_id) m
       WHERE t.person_id = m.source;
      RETURN NULL;
    END $$;
    CREATE TRIGGER person_emails_tasks_follow AFTER UPDATE ON person_emails
      REFERENCING OLD TABLE AS moved_from NEW TABLE AS moved_to FOR EACH STATEMENT EXECUTE FUNCTION crm_tasks_follow_person();

    -- Before a user goes (by any path: the admin API, crm-admin, psql), the tasks others gave them go
    -- back to whoever gave them; the cascades then do the rest (see the table's comment).
    CREATE FUNCTION crm_tasks_hand_back() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      UPDATE tasks SET assignee_id = created_by, updated_at = now()
       WHERE assignee_id = OLD.id AND created_by IS NOT NULL AND created_by <> OLD.id;
      RETURN OLD;
    END $$;
    CREATE TRIGGER users_tasks_hand_back BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION crm_tasks_hand_back();
  `;

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    await qi.sequelize.query(
      `
      DROP TRIGGER IF EXISTS users_tasks_hand_back ON users;
      DROP TRIGGER IF EXISTS person_emails_tasks_follow ON person_emails;
      DROP FUNCTION IF EXISTS crm_tasks_hand_back();
      DROP FUNCTION IF EXISTS crm_tasks_follow_person();
      DROP TABLE IF EXISTS tasks;
      `,
      { transaction },
    );
  });
}

async function scalar(qi: QueryInterface, sql: string, transaction: Transaction): Promise<string> {
  const [rows] = await qi.sequelize.query(sql, { transaction });
  return (rows as Array<{ value: string }>)[0].value;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
