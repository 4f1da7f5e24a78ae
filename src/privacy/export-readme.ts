/** README.txt of an export: what each file holds, for whoever answers the access request. */
export function exportReadme(address: string, createdAt: string): string {
  return `Personal data held by the staff CRM about ${address}
Exported ${createdAt}, from one consistent snapshot of the CRM's database.

The CRM keeps a copy of the staff's correspondence with the people they write with, synced from the
staff mailboxes (the mailboxes themselves are on the mail server and are not part of this export).
Each .jsonl file holds one JSON object per line.

accounts.jsonl              the staff email accounts that hold something of this address, their owner
                            and the users they are shared with (role, whether they may read and send)
contacts.jsonl              the contact of this address in each account: name, phone, job title,
                            tags, the staff's notes, when it was added and when it last had an email, and the staff's
                            follow-up reminders about it (who, when due, their note)
people.jsonl                the person record of this address (one per correspondent, shared by the
                            staff): name, phone, job title, tags, notes, company and every address
                            it has
emails.jsonl                every email this address took part in (From, Sender, Reply-To, To, Cc or
                            Bcc): headers, the text of the body, read state, and the name, type and
                            size of each attachment
                            (attachment contents stay on the mail server and are not copied here)
companies.jsonl             the company of this address's mail domain (unless a free-mail provider),
                            with what staff wrote on it: name, notes, registration number, VAT id,
                            address, phone, web; otherContacts is how many other contacts are filed
                            there (notes of a company with others may be about them too)
drafts.jsonl                drafts the staff began to write to this address (To, Cc or Bcc), unsent
scheduled-emails.jsonl      sends scheduled for later to this address, or answering or forwarding its
                            mail: recipients, subject, text, state
conversation-comments.jsonl the staff's internal comments on conversations this address took part in
contact-suppressions.jsonl  accounts where a user deleted this contact and asked the CRM not to
                            recreate it from mail
tasks.jsonl                 the staff's tasks about this person (linked to them, or to a company of
                            their own mail domain): title, due time, status, who gave it and who has it
audit-records.jsonl         audit records that name this address (contacts added or deleted by hand)
summary.json                the number of rows in each file
`;
}
