import type { RequestHandler } from 'express';
import type { Logger } from '../logging/logger.js';

const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

export const UNTRUSTED_PROXY_WARNING =
  'Požiadavky prichádzajú cez reverzný proxy (X-Forwarded-For/Forwarded/X-Real-IP), ale TRUST_PROXY=0: ' +
  'všetci klienti majú adresu proxy, takže obmedzenie prihlásení a audit ich nerozlišujú. Nastavte TRUST_PROXY na počet proxy pred službou.';

/**
 * TRUST_PROXY=0 behind a proxy makes every client the proxy's address: 50 wrong logins from anyone
 * then throttle everyone, and the audit log shows one address. When a request arrives with
 * forwarding headers while nothing is trusted, this says so once in the log (warn) and from then
 * on in GET /api/health/ready, where a load balancer or an operator looks.
 */
export class ProxyHeaderCheck {
  private seen = false;

  constructor(
    private readonly trustProxy: number,
    private readonly logger: Logger,
  ) {}

  readonly middleware: RequestHandler = (req, _res, next) => {
    if (!this.seen && this.trustProxy === 0 && FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined)) {
      this.seen = true;
      this.logger.warn('forwarding headers received but TRUST_PROXY=0: every client looks like the proxy to throttling and audit', {
        remoteAddress: req.socket.remoteAddress,
        headers: FORWARDING_HEADERS.filter((name) => req.headers[name] !== undefined),
      });
    }
    next();
  };

  warnings(): string[] {
    return this.seen ? [UNTRUSTED_PROXY_WARNING] : [];
  }
}
