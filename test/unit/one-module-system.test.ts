/**
 * The test process loads the program's modules once, as ES modules (package.json "type": "module").
 * Mocha require()s its files first; with tsx's require hook (`--import=tsx`) that loaded every test
 * file, and through it all of src/, as CommonJS, while anything imported dynamically (`await
 * import()`, the program's own lazy imports) came in a second time as ESM: two copies of each
 * module, two sets of module state, and coverage that mapped neither right. Only tsx's ESM loader is
 * registered now (`--import=tsx/esm` in .mocharc*.json); require() of a .ts file fails there and
 * mocha falls back to import(). On Node 22.18 and later require() itself loads a .ts file of this
 * "type": "module" package as an ES module (type stripping and require(esm)): it then sits in
 * require.cache, but as the one ES module namespace, not a CommonJS copy.
 */
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { AppConfig } from '../../src/config/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('unit: one module system in the test process', () => {
  it('has loaded no TypeScript module of the project through require() (as CommonJS)', () => {
    const cache = createRequire(import.meta.url).cache;
    const isEsModule = (exports: unknown) => Object.prototype.toString.call(exports) === '[object Module]';
    const commonJs = Object.entries(cache)
      .filter(([file, mod]) => file.startsWith(root) && !file.includes('/node_modules/') && /\.[cm]?ts$/.test(file) && !isEsModule(mod?.exports))
      .map(([file]) => file);
    expect(commonJs).to.deep.equal([]);
  });

  it('a dynamic import() finds the module already loaded, not a second copy', async () => {
    const again = await import('../../src/config/config.js');
    expect(again.AppConfig).to.equal(AppConfig);
  });
});
