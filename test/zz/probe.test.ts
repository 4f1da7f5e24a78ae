import { createRequire } from 'node:module';
import * as cfg from '../../src/config/config.js';
it('probe', async () => {
  const dyn = await import('../../src/config/config.js');
  console.log('same module object:', dyn.AppConfig === cfg.AppConfig);
  const req = createRequire(import.meta.url);
  console.log('cjs src modules', Object.keys(req.cache).filter((k) => k.includes('/src/')).length);
  // eslint-disable-next-line
  console.log('this file is', typeof module !== 'undefined' ? 'cjs' : 'esm');
});
