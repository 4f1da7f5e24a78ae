/**
 * Using the typed client: log in, read /me, list contacts, upload a timesheet, follow live updates.
 *
 *   CRM_URL=http://127.0.0.1:3000 CRM_USERNAME=jana CRM_PASSWORD=... npx tsx clients/typescript/example.ts
 *
 * A browser app would rely on the cookies login sets; this script, outside a browser, sends the access
 * token of the login response as a Bearer token instead.
 */
import { createClient, timesheetForm, type ApiError, type Contact, type LiveEvents, type LiveEventType, type User } from './client.js';

/**
 * GET /api/events read with fetch (Node has no EventSource; in a browser use subscribeLiveEvents from
 * client.ts): resolves with the first event of `type`, then stops reading.
 */
async function nextLiveEvent<T extends LiveEventType>(baseUrl: string, bearer: string, type: T, opened: () => Promise<void>): Promise<LiveEvents[T]> {
  const res = await fetch(`${baseUrl}/api/events`, { headers: { Authorization: `Bearer ${bearer}`, Accept: 'text/event-stream' } });
  if (!res.ok || !res.body) throw new Error(`events: ${res.status}`);
  // The head arrives once the stream is live: what happens from now on is delivered.
  await opened();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('events: the stream ended');
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((l) => !l.startsWith(':'))
            .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
        );
        if (fields.event === type) return JSON.parse(fields.data!) as LiveEvents[T];
      }
    }
  } finally {
    await reader.cancel();
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** A failure's stable code and Slovak message (never branch on the message). */
function describe(error: ApiError): string {
  return `${error.error.code} (${error.error.statusCode}): ${error.error.message}`;
}

async function main(): Promise<void> {
  const anonymous = createClient({ baseUrl: required('CRM_URL') });

  const login = await anonymous.POST('/api/auth/login', {
    body: { username: required('CRM_USERNAME'), password: required('CRM_PASSWORD'), rememberMe: false },
  });
  if (login.error) throw new Error(`login failed: ${describe(login.error)}`);
  const { tokens, needsPasswordChange, needsEmailSetup } = login.data.data;
  console.log(`logged in; needsPasswordChange=${needsPasswordChange} needsEmailSetup=${needsEmailSetup}`);

  const api = createClient({ baseUrl: required('CRM_URL'), headers: { Authorization: `Bearer ${tokens.accessToken}` } });

  const me = await api.GET('/api/auth/me');
  if (me.error) throw new Error(`me failed: ${describe(me.error)}`);
  const user: User = me.data.data.user;
  console.log(`me: ${user.username} (${user.role}), id ${user.id}`);

  const contacts = await api.GET('/api/contacts', { params: { query: { sort: 'name', limit: 10 } } });
  if (contacts.error) throw new Error(`contacts failed: ${describe(contacts.error)}`);
  const { items, pagination } = contacts.data.data;
  console.log(`contacts: ${items.length} of ${pagination.total}`);
  for (const contact of items satisfies Contact[]) console.log(`  ${contact.name ?? contact.email} <${contact.email}> unread ${contact.unreadCount}`);

  // A minimal PDF: the server checks the content, not only the name.
  const pdf = new Blob(['%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'], { type: 'application/pdf' });
  const upload = await api.POST('/api/timesheets/upload', {
    body: { year: '2026', month: '3', file: pdf },
    bodySerializer: (body) => timesheetForm(body, 'vykaz-2026-03.pdf'),
  });
  if (upload.error) throw new Error(`upload failed: ${describe(upload.error)}`);
  const { timesheet } = upload.data.data;
  console.log(`uploaded: ${timesheet.fileName} (${timesheet.fileType}, ${timesheet.fileSize} bytes) for ${timesheet.year}-${timesheet.month}, id ${timesheet.id}`);

  // Live updates: subscribe, change a contact's notes, and see the event it makes.
  const first = items[0];
  if (first) {
    const event = await nextLiveEvent(required('CRM_URL'), tokens.accessToken, 'contact.updated', async () => {
      const patched = await api.PATCH('/api/contacts/{id}', { params: { path: { id: first.id } }, body: { notes: 'Volať v pondelok' } });
      if (patched.error) throw new Error(`contact update failed: ${describe(patched.error)}`);
    });
    console.log(`live: contact.updated ${event.ids?.join(',') ?? `(${event.count} contacts)`} in account ${event.emailAccountId}`);
  }
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});
