#!/usr/bin/env node
// The test mail server's outgoing side: Cyrus submits mail (JMAP EmailSubmission) over SMTP to this
// relay (imapd.conf `smtp_backend: host`), which hands each message to Cyrus's own LMTP port, so the
// recipients' mailboxes on the same test server really receive it. Loopback only, no AUTH, no TLS.
// Started and stopped by start.sh / stop.sh; not for production.
//
// Hooks for tests (local part of the address, case-insensitive):
//   sender    refuse-*   MAIL FROM answered 554 5.7.1   (the whole submission is refused)
//   recipient reject-*   RCPT TO answered 550 5.1.1     (that recipient is rejected)
//   recipient tempfail-* RCPT TO answered 451 4.3.0     (a temporary failure)
// Anything else is delivered over LMTP; the SMTP answer waits for the LMTP answer, so a message is in
// the recipient's mailbox when the submission returns.
//
// Each delivery is one `delivered {...}` line in the log with its Message-ID and Subject header: a test
// counts submissions there (test/support/relay-log.ts), since Cyrus keeps one copy per Message-ID and
// mailbox, so the mailbox alone cannot tell a message sent once from one sent twice.
//
// usage: node smtp-relay.mjs --port 12525 --lmtp-port 12424 [--host 127.0.0.1] [--max-size 67108864]
import { SMTPServer } from 'smtp-server';
import nodemailer from 'nodemailer';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.JMAP_SMTP_PORT ?? '12525' },
    'lmtp-port': { type: 'string', default: process.env.JMAP_LMTP_PORT ?? '12424' },
    host: { type: 'string', default: '127.0.0.1' },
    'max-size': { type: 'string', default: String(64 * 1024 * 1024) },
  },
});
const host = values.host;
if (!/^127\.|^::1$|^localhost$/.test(host)) throw new Error(`refusing to listen beyond loopback: ${host}`);

const log = (...parts) => console.log(new Date().toISOString(), ...parts);
const localPart = (address) =>
  String(address ?? '')
    .split('@')[0]
    .toLowerCase();
const smtpError = (code, text) => Object.assign(new Error(text), { responseCode: code });

/** A header's raw (unfolded, not decoded) value from the message's header section, or null. */
function headerValue(head, name) {
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const match = new RegExp(`^${name}:[ \t]*(.*)$`, 'im').exec(unfolded);
  return match ? match[1].trim() : null;
}

/** The message as a stream for LMTP, keeping a copy of its first 64 KiB (the header section) aside. */
function tapHeaders(stream) {
  const copy = new PassThrough();
  let head = '';
  copy.head = () => head.split(/\r?\n\r?\n/)[0];
  stream.on('data', (chunk) => {
    if (head.length < 65_536) head += chunk.toString('latin1');
  });
  stream.pipe(copy);
  return copy;
}

// One LMTP connection per message: the relay carries a handful of test messages, not a mail load.
const lmtp = nodemailer.createTransport({
  host,
  port: Number(values['lmtp-port']),
  lmtp: true,
  secure: false,
  ignoreTLS: true,
  name: 'crm-test-relay',
  connectionTimeout: 10_000,
  socketTimeout: 60_000,
});

const server = new SMTPServer({
  name: 'crm-test-relay',
  banner: 'crm-test-relay (delivers into the test Cyrus over LMTP)',
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  size: Number(values['max-size']),
  logger: false,
  onMailFrom(address, _session, callback) {
    if (localPart(address.address).startsWith('refuse-')) return callback(smtpError(554, '5.7.1 Submission refused by policy (test hook)'));
    return callback();
  },
  onRcptTo(address, _session, callback) {
    const local = localPart(address.address);
    if (local.startsWith('reject-')) return callback(smtpError(550, `5.1.1 <${address.address}>: Recipient address rejected (test hook)`));
    if (local.startsWith('tempfail-')) return callback(smtpError(451, '4.3.0 Temporary failure (test hook)'));
    return callback();
  },
  onData(stream, session, callback) {
    const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) };
    const raw = tapHeaders(stream);
    let settled = false;
    const finish = (err) => {
      if (settled) return;
      settled = true;
      // smtp-server expects the whole message read before the answer.
      if (!stream.readableEnded) {
        stream.on('end', () => callback(err));
        raw.resume(); // the copy LMTP did not read: drained, or the pipe would hold the message back
        stream.resume();
      } else callback(err);
    };
    stream.on('error', (err) => finish(smtpError(451, `4.3.0 ${err.message}`)));
    lmtp.sendMail({ envelope, raw }).then(
      (info) => {
        if (stream.sizeExceeded) return finish(smtpError(552, '5.3.4 Message too big'));
        const head = raw.head();
        const headers = { messageId: headerValue(head, 'Message-ID'), subject: headerValue(head, 'Subject') };
        log('delivered', JSON.stringify({ from: envelope.from, to: envelope.to, ...headers, rejected: info.rejected, response: info.response }));
        if (info.accepted.length === 0) return finish(smtpError(550, '5.1.1 No recipient accepted by LMTP'));
        return finish();
      },
      (err) => {
        log('lmtp failure', err.message);
        finish(smtpError(451, `4.3.0 Local delivery failed: ${err.message}`));
      },
    );
  },
});

server.on('error', (err) => log('smtp error', err.message));
server.listen(Number(values.port), host, () => log(`listening on ${host}:${values.port}, delivering to LMTP ${host}:${values['lmtp-port']}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
