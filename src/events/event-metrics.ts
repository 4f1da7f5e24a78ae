import type * as PromClient from 'prom-client';
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { AppMetrics } from '../metrics/metrics.js';
import { EVENT_TYPES } from './event-types.js';
import type { StreamEnd } from './event-sink.js';
import { lazyRequire } from '../shared/lazy-require.js';

/** Loaded when an instance first builds its metrics (ADR 0113): a crm-admin command never does. */
const prom = lazyRequire<typeof PromClient>('prom-client');

const ENDS: readonly StreamEnd[] = ['client', 'session', 'slow', 'shutdown', 'overflow'];

/** The live-update metrics, in the instance's registry (src/metrics/metrics.ts). */
export class EventMetrics {
  readonly streamsOpen: Gauge;
  readonly eventsSent: Counter<'type'>;
  readonly streamsEnded: Counter<'reason'>;
  readonly lag: Histogram;
  readonly fanout: Histogram;

  constructor(metrics: AppMetrics, openStreams: () => number) {
    const registers = [metrics.registry];
    this.streamsOpen = new (prom().Gauge)({
      name: 'crm_events_streams_open',
      help: 'Open GET /api/events streams on this instance',
      registers,
      collect() {
        this.set(openStreams());
      },
    });
    this.eventsSent = new (prom().Counter)({ name: 'crm_events_sent_total', help: 'Events written to streams, by type', labelNames: ['type'] as const, registers });
    this.streamsEnded = new (prom().Counter)({
      name: 'crm_events_streams_ended_total',
      help: 'Streams ended, by reason (client left, session ended, slow client dropped, shutdown, set-up overflow)',
      labelNames: ['reason'] as const,
      registers,
    });
    this.lag = new (prom().Histogram)({
      name: 'crm_events_lag_seconds',
      help: 'Time from the write in the database to this instance handing the event to its streams',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.fanout = new (prom().Histogram)({
      name: 'crm_events_fanout_seconds',
      help: 'Time to judge one event for every open stream of this instance and write it to those that may see it',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers,
    });
    for (const type of EVENT_TYPES) this.eventsSent.inc({ type }, 0);
    for (const reason of ENDS) this.streamsEnded.inc({ reason }, 0);
  }
}
