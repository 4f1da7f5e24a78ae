import type { AppContext } from '../../../src/app/context.js';
import { testApp, testContext } from '../../support/harness.js';
import { serveApp, type HttpTarget } from './http-target.js';
import { configSecrets } from './invariants.js';
import { buildWorld, type World } from './world.js';

/** Nothing listens on port 1: a mail server that is down, so fuzzed mail credentials never reach a real one. */
export const CLOSED_JMAP_URL = 'http://127.0.0.1:1/.well-known/jmap';

/**
 * The settings of the fuzzing app: the mail server is unreachable (no fuzzed request talks to Cyrus)
 * and one proxy is trusted, so every request can come from its own X-Forwarded-For address and the
 * login throttle counters of this suite never meet those of other suites on 127.0.0.1.
 */
export const FUZZ_ENV = { JMAP_SESSION_URL: CLOSED_JMAP_URL, JMAP_TIMEOUT_MS: '1000', TRUST_PROXY: '1' };

export interface FuzzBench {
  ctx: AppContext;
  target: HttpTarget;
  world: World;
  secrets: string[];
}

export async function fuzzBench(env: Record<string, string> = FUZZ_ENV): Promise<FuzzBench> {
  const ctx = await testContext(env);
  const target = await serveApp(await testApp(env));
  const world = await buildWorld(ctx);
  const actors = [world.owner, world.other, world.admin];
  const secrets = [
    ...configSecrets(ctx.config),
    ...actors.flatMap((a) => [a.password, a.fixture.temporaryPassword, 'not-a-real-mail-password', a.account.emailPassword, a.session.refreshToken]),
  ];
  return { ctx, target, world, secrets };
}
