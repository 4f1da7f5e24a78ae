import { expect } from 'chai';
import { describeStartError } from '../../src/app/start-errors.js';
import { AppConfig } from '../../src/config/config.js';

/** What a failed start tells the sysadmin in journald (src/app/start-errors.ts). */
describe('start errors', () => {
  const config = AppConfig.fromEnv({ ...process.env, HOST: '127.0.0.1', PORT: '3000', DATABASE_URL: 'postgres://crm:s3cret@db.example:5432/crm' });

  it('names a busy port only when the listen failed', () => {
    const listen = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:3000'), { code: 'EADDRINUSE', syscall: 'listen' });
    expect(describeStartError(listen, config)).to.match(/port 3000 on 127\.0\.0\.1 is already in use/);
  });

  it('does not call port 0 busy: no free port was left to choose from', () => {
    const listen = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1'), { code: 'EADDRINUSE', syscall: 'listen' });
    expect(describeStartError(listen, config, 0)).to.match(/no free port to listen on 127\.0\.0\.1/);
  });

  it('tells an outgoing connection that found no free local port apart from a busy port', () => {
    // What connect() answers when the ephemeral ports are used up (a machine with too many connections open).
    const connect = Object.assign(new Error('connect EADDRINUSE 127.0.0.1:5432'), { code: 'EADDRINUSE', syscall: 'connect' });
    const line = describeStartError(connect, config);
    expect(line).to.not.match(/already in use/);
    expect(line).to.match(/no free local port for an outgoing connection/);
  });

  it('never prints the database password', () => {
    const failure = new Error('password authentication failed for postgres://crm:s3cret@db.example:5432/crm');
    expect(describeStartError(failure, config)).to.not.include('s3cret');
  });
});
