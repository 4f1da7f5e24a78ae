/**
 * The one place every page of a run passes on its way to the database: the run's BatchWriter. Full
 * and incremental pages, the first sync of a re-linked mailbox and the replay after a full sync all
 * call writer.apply, so the gate (sync-types.ts MailAdmission: erased addresses, retention) is put in
 * front of it here, once per run, instead of at each caller. The writer itself stays unaware of it.
 */
import type { BatchInput, BatchResult, BatchWriter } from './batch-writer.js';
import type { MailGate } from './sync-types.js';

export function admitBeforeWriting(writer: BatchWriter, gate: MailGate | undefined): BatchWriter {
  if (!gate) return writer;
  const write = writer.apply.bind(writer);
  writer.apply = async (input: BatchInput): Promise<BatchResult> => (input.emails.length === 0 ? write(input) : write({ ...input, emails: await gate.admit(input.emails) }));
  return writer;
}
