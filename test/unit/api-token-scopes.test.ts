import { expect } from 'chai';
import { TOKEN_SCOPES, requiredScope, scopesGrant } from '../../src/api-tokens/api-token-scopes.js';
import { hasApiTokenShape, hashApiToken, isApiTokenCredential, newApiTokenSecret } from '../../src/api-tokens/api-token-secret.js';

describe('unit: API token scopes and secrets (issue 48)', () => {
  it('names a read and a write scope per area, and admin', () => {
    expect(TOKEN_SCOPES).to.include.members(['emails:read', 'emails:write', 'people:read', 'conversations:write', 'tasks:read', 'timesheets:write', 'admin']);
    expect(TOKEN_SCOPES).to.have.length(15);
  });

  it('maps a path and method to its scope: GET/HEAD read, others write, the longest prefix deciding', () => {
    expect(requiredScope('/contacts', 'GET')).to.equal('contacts:read');
    expect(requiredScope('/contacts/1/follow-up', 'PUT')).to.equal('contacts:write');
    expect(requiredScope('/emails/:id', 'HEAD')).to.equal('emails:read');
    expect(requiredScope('/emails/contact/1/read', 'POST')).to.equal('emails:write');
    expect(requiredScope('/Companies/1', 'PATCH')).to.equal('companies:write');
    expect(requiredScope('/people', 'GET')).to.equal('people:read');
    expect(requiredScope('/people/1/merge', 'POST')).to.equal('people:write');
    expect(requiredScope('/admin/timesheets/report', 'GET')).to.equal('admin');
    expect(requiredScope('/timesheets/all', 'GET')).to.equal('timesheets:read');
    expect(requiredScope('/auth/me', 'GET')).to.equal('identity');
    expect(requiredScope('/tasks', 'GET')).to.equal('tasks:read');
    expect(requiredScope('/tasks/1', 'PATCH')).to.equal('tasks:write');
    // A timeline goes with its record's area (its items of other kinds need their own scopes too: src/timelines).
    expect(requiredScope('/people/1/timeline', 'GET')).to.equal('people:read');
    expect(requiredScope('/companies/1/timeline', 'GET')).to.equal('companies:read');
  });

  it('refuses every path not in the table, and matches whole segments only', () => {
    for (const path of [
      '/tokens',
      '/tokens/1',
      '/auth/set-password',
      '/auth/logout',
      '/auth/sessions',
      '/auth/refresh',
      '/events',
      '/auth/meX',
      '/contactsX',
      '/tasksX',
      '/users/1',
      '/',
    ]) {
      expect(requiredScope(path, 'GET'), path).to.equal(null);
    }
  });

  it('grants with the scope itself; write implies read, never the reverse; admin only with admin', () => {
    expect(scopesGrant(['contacts:write'], 'contacts:read')).to.equal(true);
    expect(scopesGrant(['contacts:read'], 'contacts:write')).to.equal(false);
    expect(scopesGrant(['emails:write'], 'contacts:read')).to.equal(false);
    expect(scopesGrant(['contacts:write'], 'admin')).to.equal(false);
    expect(scopesGrant(['admin'], 'admin')).to.equal(true);
    expect(scopesGrant(['admin'], 'contacts:read')).to.equal(false);
    expect(scopesGrant([], 'identity')).to.equal(true);
  });

  it('makes secrets of 51 characters with the crm_pat_ prefix, and hashes them with SHA-256', () => {
    const a = newApiTokenSecret();
    expect(a).to.have.length(51);
    expect(hasApiTokenShape(a) && isApiTokenCredential(a)).to.equal(true);
    expect(newApiTokenSecret()).not.to.equal(a);
    expect(hasApiTokenShape(`${a}x`)).to.equal(false);
    expect(isApiTokenCredential('eyJhbGciOiJIUzI1NiJ9.x.y')).to.equal(false);
    // The FIPS 180-2 test vector: the stored hash is plain SHA-256, hex.
    expect(hashApiToken('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiToken(a)).to.match(/^[0-9a-f]{64}$/);
  });
});
