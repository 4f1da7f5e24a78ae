import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { deferredLogger } from '../../src/cli/deferred-logger.js';

/** The lines a logger wrote to its stream, parsed. */
function collect(stream: PassThrough): Array<Record<string, unknown>> {
  const text = (stream.read() as Buffer | null)?.toString('utf8') ?? '';
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('unit: the CLI logger built on its first written line (src/cli/deferred-logger.ts)', () => {
  it('drops lines below its level, as winston would, and writes the rest through the real logger', () => {
    const stream = new PassThrough();
    const logger = deferredLogger('warn', { stream });
    logger.info('below the level');
    logger.debug('far below');
    logger.warn('at the level', { accountId: 'a1' });
    logger.error('above the level');
    const lines = collect(stream);
    expect(lines.map((l) => l.message)).to.deep.equal(['at the level', 'above the level']);
    expect(lines[0]).to.include({ level: 'warn', accountId: 'a1' });
  });

  it('a child logger keeps the level and adds its fields', () => {
    const stream = new PassThrough();
    const child = deferredLogger('info', { stream }).child({ command: 'users list' });
    child.debug('below');
    child.info('written');
    const lines = collect(stream);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ message: 'written', command: 'users list' });
  });
});
