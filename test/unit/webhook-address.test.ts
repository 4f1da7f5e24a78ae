import crypto from 'node:crypto';
import { expect } from 'chai';
import { isPrivateAddress, parsePrivateAllowList, resolveDestination, urlProblem } from '../../src/webhooks/webhook-address.js';
import { signWebhook } from '../../src/webhooks/webhook-signature.js';

/** The SSRF guard and the Standard Webhooks signature, as pure functions. */
describe('unit: webhook address guard and signature', () => {
  const none = parsePrivateAllowList('');

  it('knows loopback, private, link-local, metadata, ULA and unspecified addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', '::', 'fd12::1', 'fe80::1', '::ffff:127.0.0.1', '100.64.0.1']) {
      expect(isPrivateAddress(ip), ip).to.equal(true);
    }
    for (const ip of ['93.184.216.34', '2606:4700::1111', '172.32.0.1', '::ffff:8.8.8.8']) expect(isPrivateAddress(ip), ip).to.equal(false);
  });

  it('refuses other schemes, credentials and literal private addresses unless allowed', () => {
    expect(urlProblem('https://erp.example.com/h', none)).to.equal(null);
    expect(urlProblem('ftp://erp.example.com/h', none)).to.be.a('string');
    expect(urlProblem('https://u:p@erp.example.com/h', none)).to.be.a('string');
    expect(urlProblem('http://[::1]:80/h', none)).to.be.a('string');
    expect(urlProblem('http://10.0.0.1/h', parsePrivateAllowList('10.0.0.0/8'))).to.equal(null);
  });

  it('checks every resolved address, and a listed host passes', async () => {
    const lookup = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]);
    const url = new URL('https://rebind.example.com/h');
    const refused = await resolveDestination(url, none, lookup).catch((e: Error) => e.message);
    expect(refused).to.match(/refused/);
    expect(await resolveDestination(url, parsePrivateAllowList('rebind.example.com'), lookup)).to.deep.equal({ address: '93.184.216.34', family: 4 });
  });

  it('signs "id.timestamp.body" with the decoded secret (the specification\'s own example)', () => {
    // https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).to.equal('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    const key = Buffer.from(secret.slice(6), 'base64');
    expect(signWebhook(secret, 'a', 1, 'b')).to.equal(`v1,${crypto.createHmac('sha256', key).update('a.1.b').digest('base64')}`);
  });
});
