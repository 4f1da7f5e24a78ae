/**
 * The layer rules of docs/architecture.md, checked by `npm run lint` (and so by `npm test` and CI).
 * Entry points (src/app, src/cli, commands/) sit on top; HTTP helpers (src/http) know no area;
 * services know neither HTTP nor the entry points; nothing forms a circle.
 */
const fs = require('node:fs');
const path = require('node:path');

/** The entry points: they sit on top and may import anything below. */
const ENTRY_POINTS = ['app', 'cli'];
/** Express helpers that know no area. */
const HTTP_HELPERS = ['http'];
/** The bottom layer: models, database, framework-free helpers. */
const FOUNDATION = ['config', 'crypto', 'db', 'errors', 'logging', 'models', 'shared'];
/**
 * Every other folder of src/ is an area, read from the disk at load time: a new area is covered by the
 * layer rules the day it is created, without anyone remembering to list it here.
 */
const AREA_NAMES = fs
  .readdirSync(path.join(__dirname, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && ![...ENTRY_POINTS, ...HTTP_HELPERS, ...FOUNDATION].includes(entry.name))
  .map((entry) => entry.name)
  .sort();
const AREAS = `(${AREA_NAMES.join('|')})`;
const FOUNDATION_PATH = `^src/(${FOUNDATION.join('|')})/`;
/** The HTTP side of an area: routes, presenters, request and response schemas, OpenAPI rows, express middleware, cookies. */
const HTTP_SIDE = '(-routes|-presenter|-presenters|-schemas|-responses|-doc|-middleware|-cookie|/cookies)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import circles make load order matter and areas impossible to change alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-upward-to-entry-points',
      severity: 'error',
      comment: 'Only the entry points (src/app, src/cli, commands/) may import the composition root or the CLI plumbing.',
      from: { path: '^src/', pathNot: '^src/(app|cli)/' },
      to: { path: '^(src/(app|cli)/|commands/)' },
    },
    {
      name: 'http-helpers-know-no-area',
      severity: 'error',
      comment: 'src/http holds framework helpers every area uses; an area import there runs upward.',
      from: { path: '^src/http/' },
      to: { path: `^src/${AREAS}/` },
    },
    {
      name: 'services-know-no-http',
      severity: 'error',
      comment: 'Services, repositories and jobs serve HTTP, CLI and cron alike: no express, no routes, no presenters.',
      from: { path: `^src/${AREAS}/`, pathNot: [HTTP_SIDE, '^src/(admin|openapi|health|metrics)/'] },
      to: { path: ['^src/http/', HTTP_SIDE, '^src/(admin|openapi)/', '^node_modules/(express|multer|cookie-parser|cors|helmet)/'] },
    },
    {
      name: 'commands-use-services-not-http',
      severity: 'error',
      comment: 'crm-admin commands call the services (presenters and schemas are shared); the HTTP layer is not theirs.',
      from: { path: '^commands/' },
      to: { path: ['^src/http/', '-routes\\.ts$', '^node_modules/express/'] },
    },
    {
      name: 'models-stay-below',
      severity: 'error',
      comment: 'Models and the database module are the bottom layer: they import no area.',
      from: { path: FOUNDATION_PATH },
      to: { path: `^src/${AREAS}/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|commands|node_modules)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
