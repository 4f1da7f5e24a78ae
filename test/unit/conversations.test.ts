import { expect } from 'chai';
import { mentionedUsernames } from '../../src/conversations/comment-service.js';
import { toConversationRecord, type ConversationRow } from '../../src/conversations/conversation-records.js';

const at = (iso: string) => new Date(iso);
const row = (over: Partial<ConversationRow>): ConversationRow => ({
  id: '00000000-0000-4000-8000-000000000001',
  email_account_id: '00000000-0000-4000-8000-000000000002',
  thread_id: 'T1',
  message_count: 2,
  last_message_at: at('2026-12-01T10:00:00Z'),
  last_inbound_at: at('2026-12-01T10:00:00Z'),
  last_outbound_at: null,
  awaiting: true,
  status: 'open',
  status_changed_at: null,
  assignee_id: null,
  assignee_username: null,
  assignee_first_name: null,
  assignee_last_name: null,
  subject: 'Ponuka',
  unread_count: 1,
  participants: [],
  ...over,
});

describe('unit: the team inbox (mentions, direction, waiting)', () => {
  it('reads @username mentions, not addresses, and a sentence’s dot ends the name', () => {
    expect(mentionedUsernames('@peter pozri, a @Jana.Kovacova.')).to.have.members(['peter', 'jana.kovacova.', 'jana.kovacova']);
    expect(mentionedUsernames('píš na jana@firma.sk')).to.deep.equal([]);
    expect(mentionedUsernames('@ab je krátke')).to.deep.equal([]);
  });

  it('takes the direction from the newest email, a reply of the same second counting as the answer', () => {
    expect(toConversationRecord(row({})).lastDirection).to.equal('inbound');
    const answered = row({ last_outbound_at: at('2026-12-01T10:00:00Z'), awaiting: false });
    expect(toConversationRecord(answered).lastDirection).to.equal('outbound');
    expect(toConversationRecord(row({ last_inbound_at: null, last_outbound_at: at('2026-12-01T09:00:00Z'), awaiting: false })).lastDirection).to.equal('outbound');
  });

  it('is waiting only while awaiting a reply, since its newest inbound email', () => {
    expect(toConversationRecord(row({})).waitingSince).to.deep.equal(at('2026-12-01T10:00:00Z'));
    expect(toConversationRecord(row({ awaiting: false, status: 'done' })).waitingSince).to.equal(null);
  });

  it('shows an assignee only with their name (a deleted one reads as nobody)', () => {
    expect(toConversationRecord(row({ assignee_id: '00000000-0000-4000-8000-000000000003' })).assignee).to.equal(null);
    const assigned = toConversationRecord(
      row({ assignee_id: '00000000-0000-4000-8000-000000000003', assignee_username: 'peter', assignee_first_name: 'Peter', assignee_last_name: null }),
    );
    expect(assigned.assignee).to.deep.equal({ id: '00000000-0000-4000-8000-000000000003', username: 'peter', firstName: 'Peter', lastName: null });
  });
});
