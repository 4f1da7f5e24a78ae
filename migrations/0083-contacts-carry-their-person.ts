import type { QueryInterface } from 'sequelize';
import { replaceable, replacedOnce, withPinnedSearchPath } from '../src/db/migration-sql.js';
import { CONTACTS_ADDED, FORGET, READDRESSED } from './0050-people.js';

/**
 * Each contact carries its person (`contacts.person_id`, issue 46: the people list of a broad filter;
 * docs/adr/0172, amended in session 22).
 *
 * Until now a contact's person was found by its address (person_emails, one index probe per contact):
 * a common search word's 6,260 contacts cost 6,260 probes before the first check, the walk one per
 * walked contact, each person's sight two probes per address. The person's id on the contact row,
 * which those statements read anyway, removes the probes; contacts_person_idx answers a person's
 * contacts in one range (their sight, the merge), and contacts_account_last_email_idx carries it so
 * that the walk of the people list reads the index alone.
 *
 * Kept by the database, in the writer's own transaction, whoever writes:
 * - A contact inserted, or its address changed, takes the person of its address before the row is
 *   written (a BEFORE row trigger: the row is written once). (person_id, email) is a foreign key to
 *   the address's row of person_emails, so a contact can never name another person than its
 *   address's, whoever writes. The address row is held FOR KEY SHARE (as crm_people_adopt held it), so a concurrent
 *   crm_people_forget or merge of that address waits for this commit and then sees the contact; a
 *   new address gets a new person with the contact's company (two writers: the unique address
 *   decides, the loser's person is removed and it takes the winner's). This replaces the statement
 *   trigger of 0050 that adopted new addresses after the insert.
 * - A merge moves its sources' addresses (src/people/person-repository.ts); the foreign key's
 *   ON UPDATE CASCADE moves their contacts in the same statement.
 * - Everything else is unchanged: person_emails stays the address book of the installation
 *   (colleagues, erasure, export read it by address), crm_people_forget still removes an address
 *   with no contact and a person with no address.
 *
 * The lock order becomes address rows, then people, for both crm_people_forget and the merge: a
 * writer of a contact holds its address row, and for a new address asks for its new person's row
 * (the key of person_emails), so whoever locks people FOR UPDATE takes the address rows first.
 *
 * Existing contacts are filled in one UPDATE (every contact row written once more; on a million
 * contacts some tens of seconds under the migration's lock, docs/upgrades.md) with the contacts'
 * event trigger off: person_id is no news (crm_events_contacts compares other columns) and the
 * transition tables of a million rows would be built for nothing.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await withPinnedSearchPath(
    qi,
    (path) => `
    ALTER TABLE contacts ADD COLUMN person_id uuid;
    -- An address without a person would break NOT NULL below; 0050's triggers leave none, this heals any.
    SELECT crm_people_adopt(array_agg(c.email ORDER BY c.email), array_agg(c.company_id ORDER BY c.email))
      FROM (SELECT DISTINCT ON (c.email) c.email, c.company_id FROM contacts c
             WHERE NOT EXISTS (SELECT 1 FROM person_emails pe WHERE pe.email = c.email) ORDER BY c.email, c.company_id NULLS LAST) c
    HAVING count(*) > 0;
    ALTER TABLE contacts DISABLE TRIGGER contacts_events_update;
    UPDATE contacts c SET person_id = pe.person_id FROM person_emails pe WHERE pe.email = c.email;
    ALTER TABLE contacts ENABLE TRIGGER contacts_events_update;
    -- A contact's person is its address's: the pair is a key of person_emails (it replaces the plain
    -- index of 0050 on the same columns), and the contact refers to it. A merge moving an address to
    -- another person moves its contacts with it (ON UPDATE CASCADE); an address row cannot go while a
    -- contact has it.
    ALTER TABLE person_emails ADD CONSTRAINT person_emails_person_email_key UNIQUE (person_id, email);
    DROP INDEX person_emails_person_idx;
    ALTER TABLE contacts ALTER COLUMN person_id SET NOT NULL,
      ADD CONSTRAINT contacts_person_email_fkey FOREIGN KEY (person_id, email) REFERENCES person_emails (person_id, email) ON UPDATE CASCADE;
    -- A person's contacts by account: their sight (the accounts the caller reads), and the foreign
    -- key's checks and cascade from person_emails.
    CREATE INDEX contacts_person_idx ON contacts (person_id, email_account_id) INCLUDE (last_email_at);
    -- A mailbox's contacts newest first (0009), now with their person: the people list's walk reads
    -- id, last_email_at and person_id from the index alone (on pages autovacuum has marked visible).
    DROP INDEX contacts_account_last_email_idx;
    CREATE INDEX contacts_account_last_email_idx ON contacts (email_account_id, last_email_at DESC NULLS LAST, id) INCLUDE (person_id);

    ${PERSON_OF_NEW_CONTACT(path)}
    ${forgetAddressesFirst(path)}
    ${forgetOnlyWhenReaddressed(path)}
    DROP TRIGGER contacts_people_insert ON contacts;
    DROP FUNCTION crm_people_contacts_added();
    CREATE TRIGGER contacts_people_person BEFORE INSERT ON contacts
      FOR EACH ROW EXECUTE FUNCTION crm_people_contact_person();
    CREATE TRIGGER contacts_people_readdress BEFORE UPDATE OF email ON contacts
      FOR EACH ROW WHEN (OLD.email IS DISTINCT FROM NEW.email) EXECUTE FUNCTION crm_people_contact_person();
  `,
  );
}

export async function down(qi: QueryInterface): Promise<void> {
  await withPinnedSearchPath(
    qi,
    (path) => `
    DROP TRIGGER contacts_people_readdress ON contacts;
    DROP TRIGGER contacts_people_person ON contacts;
    DROP FUNCTION crm_people_contact_person();
    ${replaceable(FORGET(path))}
    ${replaceable(READDRESSED(path))}
    ${CONTACTS_ADDED(path)}
    CREATE TRIGGER contacts_people_insert AFTER INSERT ON contacts
      REFERENCING NEW TABLE AS new_contacts FOR EACH STATEMENT EXECUTE FUNCTION crm_people_contacts_added();
    DROP INDEX contacts_account_last_email_idx;
    ALTER TABLE contacts DROP COLUMN person_id;
    CREATE INDEX contacts_account_last_email_idx ON contacts (email_account_id, last_email_at DESC NULLS LAST, id);
    CREATE INDEX person_emails_person_idx ON person_emails (person_id, email);
    ALTER TABLE person_emails DROP CONSTRAINT person_emails_person_email_key;
  `,
  );
}

/**
 * The person of a contact about to be written (NEW.email): its address's, held FOR KEY SHARE until
 * the commit, or a new one when the address has none. In a loop: a writer that loses the race for a
 * new address removes its person and reads the winner's (the INSERT waited for the winner's commit).
 * One function call per row, the work inline: every function of the schema pins its search_path,
 * which costs a few microseconds per call (migration 0082), so no helper is called per row.
 */
const PERSON_OF_NEW_CONTACT = (path: string) => `
    CREATE FUNCTION crm_people_contact_person() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    DECLARE
      found_id uuid;
    BEGIN
      LOOP
        SELECT pe.person_id INTO found_id FROM person_emails pe WHERE pe.email = NEW.email FOR KEY SHARE;
        IF found_id IS NOT NULL THEN
          NEW.person_id := found_id;
          RETURN NEW;
        END IF;
        found_id := gen_random_uuid();
        INSERT INTO people (id, company_id) VALUES (found_id, NEW.company_id);
        INSERT INTO person_emails (email, person_id) VALUES (NEW.email, found_id) ON CONFLICT (email) DO NOTHING;
        IF FOUND THEN
          NEW.person_id := found_id;
          RETURN NEW;
        END IF;
        DELETE FROM people WHERE id = found_id;
      END LOOP;
    END $$;`;

/** crm_people_forget of 0050 with its two locks swapped: the address rows first, then the people. */
function forgetAddressesFirst(path: string): string {
  const lockPeople = 'PERFORM 1 FROM people p WHERE p.id IN (SELECT pe.person_id FROM person_emails pe WHERE pe.email = ANY(addresses)) ORDER BY p.id FOR UPDATE OF p;';
  const lockAddresses = 'PERFORM 1 FROM person_emails pe WHERE pe.email = ANY(addresses) ORDER BY pe.email FOR UPDATE;';
  return replacedOnce(replaceable(FORGET(path)), `${lockPeople}\n      ${lockAddresses}`, `${lockAddresses}\n      ${lockPeople}`, '0083');
}

/**
 * crm_people_contact_readdressed of 0050 without its adopting: the row trigger above has given the
 * new address its person before the row was written; what is left is the old address's forgetting.
 */
function forgetOnlyWhenReaddressed(path: string): string {
  return replacedOnce(replaceable(READDRESSED(path)), 'PERFORM crm_people_adopt(ARRAY[NEW.email], ARRAY[NEW.company_id]);\n      ', '', '0083');
}
