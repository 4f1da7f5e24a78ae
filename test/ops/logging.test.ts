import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { EventEmitter, once } from 'node:events';
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { ServiceUnavailableError, NotFoundError } from '../../src/errors/app-errors.js';
import { createErrorHandler } from '../../src/http/error-handler.js';
import { requestIdMiddleware } from '../../src/http/middleware/request-id.js';
import { syslogPrefixFromEnv, stdoutIsJournal } from '../../src/logging/journal.js';
import { createLogger, type Logger } from '../../src/logging/logger.js';
import { runCli } from '../support/cli.js';
import { baseTestEnv } from '../support/harness.js';
import { testEnv } from '../support/test-env.js';

/** A logger writing JSON lines into an array. */
function capture(level = 'debug', syslogPrefix = false): { logger: Logger; lines: string[]; json: () => Array<Record<string, unknown>> } {
  const stream = new PassThrough();
  const lines: string[] = [];
  let buffer = '';
  stream.on('data', (c: Buffer) => {
    buffer += c.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts.filter((l) => l !== ''));
  });
  const logger = createLogger(level, { stream, syslogPrefix });
  return { logger, lines, json: () => lines.map((l) => JSON.parse(l.replace(/^<\d>/, '')) as Record<string, unknown>) };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

describe('logs for journald', function () {
  this.timeout(60_000);

  it('prefixes each JSON line with its syslog priority when asked to', async () => {
    const { logger, lines } = capture('debug', true);
    logger.error('e');
    logger.warn('w');
    logger.info('i');
    logger.http('h');
    logger.debug('d');
    await tick();
    expect(lines.map((l) => l.slice(0, 3))).to.deep.equal(['<3>', '<4>', '<6>', '<7>', '<7>']);
    for (const l of lines) expect(() => JSON.parse(l.slice(3)) as unknown).not.to.throw();

    const plain = capture('info', false);
    plain.logger.error('e');
    await tick();
    expect(plain.lines[0]).to.match(/^\{/);
  });

  it('takes the journal from JOURNAL_STREAM only when it is really stdout, or from LOG_FORMAT / LOG_SYSLOG_PREFIX', () => {
    const file = path.join(testEnv.tmpRoot ?? '/tmp', `journal-${process.pid}`);
    const fd = fs.openSync(file, 'w');
    try {
      const st = fs.fstatSync(fd);
      expect(stdoutIsJournal(`${st.dev}:${st.ino}`, fd)).to.equal(true);
      expect(stdoutIsJournal(`${st.dev}:${st.ino + 1}`, fd)).to.equal(false);
      expect(syslogPrefixFromEnv({ JOURNAL_STREAM: `${st.dev}:${st.ino}` }, fd)).to.equal(true);
      expect(syslogPrefixFromEnv({ JOURNAL_STREAM: `${st.dev}:${st.ino}`, LOG_FORMAT: 'json' }, fd)).to.equal(false);
    } finally {
      fs.closeSync(fd);
      fs.rmSync(file, { force: true });
    }
    expect(syslogPrefixFromEnv({ LOG_FORMAT: 'journald' })).to.equal(true);
    expect(syslogPrefixFromEnv({ LOG_SYSLOG_PREFIX: 'true' })).to.equal(true);
    expect(syslogPrefixFromEnv({})).to.equal(false);
  });

  describe('request logging', () => {
    function app(logger: Logger, onRequest?: () => void) {
      const a = express();
      a.use(requestIdMiddleware(logger));
      const router = express.Router();
      router.get('/items/:id', (_req, res) => {
        onRequest?.();
        res.json({ ok: true });
      });
      router.get('/items/:id/fail', () => {
        throw new NotFoundError('nope');
      });
      router.post('/link-email', () => {
        throw new ServiceUnavailableError('Poštový server nie je nakonfigurovaný (chýba JMAP_SESSION_URL)');
      });
      router.get('/bug', () => {
        throw new Error('a real bug');
      });
      a.use('/api/things', router);
      a.use(createErrorHandler(logger, false));
      return a;
    }

    it('logs the full original path (no query) on success and on error', async () => {
      const { logger, json } = capture('http');
      const a = app(logger);
      await request(a).get('/api/things/items/7?secret=1').expect(200);
      await request(a).get('/api/things/items/7/fail?x=2').expect(404);
      await tick();
      const access = json().filter((l) => l.message === 'request');
      expect(access.map((l) => [l.path, l.status])).to.deep.equal([
        ['/api/things/items/7', 200],
        ['/api/things/items/7/fail', 404],
      ]);
    });

    it('logs an expected 503 (JMAP not configured) at warn without a stack, a bug at error with one', async () => {
      const { logger, json } = capture('http');
      const a = app(logger);
      await request(a).post('/api/things/link-email').expect(503);
      await request(a).get('/api/things/bug').expect(500);
      await tick();
      const failures = json().filter((l) => l.message === 'request failed');
      expect(failures, JSON.stringify(json())).to.have.length(2);
      expect(failures[0].level).to.equal('warn');
      expect(failures[0].path).to.equal('/api/things/link-email');
      expect(JSON.stringify(failures[0])).not.to.contain('stack');
      expect(failures[1].level).to.equal('error');
      expect(JSON.stringify(failures[1])).to.contain('a real bug').and.to.contain('stack');
    });

    it("does not put a finished request's id on lines of things it created (a LISTEN client reconnecting later)", async () => {
      const { logger, json } = capture('http');
      // What src/auth/session-cache.ts does: a long-lived client created on first use, inside a request.
      let listener: EventEmitter | undefined;
      let lost: Promise<unknown> | undefined;
      const a = app(logger, () => {
        if (listener) return;
        listener = new EventEmitter();
        logger.info('listener connecting');
        const client = listener;
        lost = once(client, 'end');
        setTimeout(() => client.emit('end'), 100).unref();
        client.on('end', () => logger.warn('listener lost; reconnecting'));
      });
      await request(a).get('/api/things/items/1').set('X-Request-Id', 'first-request').expect(200);
      // The reconnect happens after the request finished: wait for it, not for a fixed time.
      await lost;
      // A later request's lines carry its own id.
      await request(a).get('/api/things/items/2').set('X-Request-Id', 'second-request').expect(200);
      await tick();
      const lines = json();
      expect(lines.find((l) => l.message === 'listener connecting')!.requestId).to.equal('first-request');
      const reconnect = lines.find((l) => l.message === 'listener lost; reconnecting');
      expect(reconnect, JSON.stringify(lines)).to.not.equal(undefined);
      expect(reconnect!.requestId, "a line outside any request carries an earlier request's id").to.equal(undefined);
      expect(lines.filter((l) => l.message === 'request').map((l) => l.requestId)).to.deep.equal(['first-request', 'second-request']);
    });
  });

  it('a configuration error at serve start is one JSON line (with its priority under LOG_FORMAT=journald), exit 1', async () => {
    const { NODE_ENV: _test, ...base } = baseTestEnv();
    const res = await runCli(['serve'], { ...base, JWT_ACCESS_SECRET: 'short', PORT: 'not-a-port', LOG_FORMAT: 'journald' });
    expect(res.status).to.equal(1);
    const lines = (res.stdout + res.stderr).split('\n').filter((l) => l.trim() !== '');
    expect(lines, res.stdout + res.stderr).to.have.length(1);
    expect(lines[0]).to.match(/^<3>\{/);
    const line = JSON.parse(lines[0].slice(3)) as { level: string; message: string; problems: string[] };
    expect(line.level).to.equal('error');
    expect(line.message).to.match(/^start failed: invalid configuration: /);
    expect(line.problems).to.have.length(2);
  });
});
