import fs from 'node:fs';

/**
 * sd-daemon(3): systemd sets JOURNAL_STREAM=<device>:<inode> of the stream it connected to stdout/
 * stderr. It only counts when fd `fd` is still that stream: a child whose output was redirected
 * inherits the variable but not the journal.
 */
export function stdoutIsJournal(journalStream: string | undefined, fd = 1): boolean {
  if (!journalStream) return false;
  const [dev, ino] = journalStream.split(':');
  try {
    const st = fs.fstatSync(fd);
    return String(st.dev) === dev && String(st.ino) === ino;
  } catch {
    return false;
  }
}

/** Whether log lines get a syslog priority prefix, decided from the raw environment (no validated config yet). */
export function syslogPrefixFromEnv(env: NodeJS.ProcessEnv = process.env, fd = 1): boolean {
  if (/^(true|1|yes)$/.test(env.LOG_SYSLOG_PREFIX ?? '')) return true;
  if (env.LOG_FORMAT === 'journald') return true;
  if (env.LOG_FORMAT === 'json') return false;
  return stdoutIsJournal(env.JOURNAL_STREAM, fd);
}

/** The sd-daemon(3) prefixes: <3> error, <4> warning, <6> info, <7> debug (winston's http and below). */
export const SYSLOG_PRIORITY: Record<string, number> = { error: 3, warn: 4, info: 6, http: 7, verbose: 7, debug: 7, silly: 7 };
