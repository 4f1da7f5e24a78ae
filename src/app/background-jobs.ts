/**
 * Every piece of background work of `serve`, in one list (issue 51, docs/adr/0145-one-shape-for-background-work.md).
 * Each entry says when the job runs, how instances share it, what a failure leads to, and how its
 * backlog is read; src/jobs/job-runner.ts drives them all alike, src/jobs/job-metrics.ts measures them
 * alike (`crm_job_*{job="<name>"}`), and `crm-admin doctor` reports each (`job:<name>`).
 *
 * A new job is one entry here: a service with `run()` and `backlog()` (usually a claim and a count in
 * its area's repository), built in its wiring module and named in services.ts.
 */
import type { AppConfig } from '../config/config.js';
import type { BackgroundJob } from '../jobs/background-job.js';
import { MAINTENANCE_CRON } from '../jobs/job-schedules.js';
import { tickMs } from '../sync/sync-schedule.js';
import { WebhookDeliveryJob } from '../webhooks/webhook-delivery-job.js';
import type { Services } from './services.js';

export function backgroundJobs(services: Services, config: AppConfig): BackgroundJob[] {
  const s = services;
  return [
    {
      name: 'mail-sync',
      description: 'syncs each email account at its turn (SYNC_INTERVAL, or SYNC_CRON), and at once when someone asks',
      schedule: config.syncCron ? { cron: config.syncCron } : { everySeconds: tickMs(config.syncIntervalSeconds * 1000) / 1000 },
      sharing: 'claimed-rows',
      retries: 'a failed account waits with a growing backoff; wrong credentials wait for new ones',
      overlap: 'join',
      runsOn: 'sync-instances',
      overdueAfterSeconds: config.syncCron ? 26 * 3600 : Math.max(3 * config.syncIntervalSeconds, 300),
      run: () => s.mailSync.runDueAccounts(),
      backlog: () => s.mailSync.jobBacklog(),
      stop: () => s.mailSync.shutdown(),
    },
    {
      name: 'retention',
      description: 'deletes ended sessions, old audit records, expired throttle counters and (EMAIL_RETENTION_DAYS) old emails',
      schedule: { cron: MAINTENANCE_CRON },
      sharing: 'advisory-lock',
      retries: 'a failed run is logged; the next hour runs again',
      overlap: 'skip',
      runsOn: 'every-instance',
      overdueAfterSeconds: 3 * 3600,
      run: () => s.retention.run(),
      backlog: () => s.retention.backlog(),
    },
    {
      name: 'outbox-pruning',
      description: 'keeps the events outbox to its last ten minutes (Last-Event-ID)',
      schedule: { everySeconds: 60 },
      sharing: 'harmless-repeat',
      retries: 'the next minute runs again',
      overlap: 'skip',
      runsOn: 'every-instance',
      overdueAfterSeconds: 600,
      run: () => s.outboxPruner.run(),
      backlog: () => s.outboxPruner.backlog(),
    },
    {
      name: 'follow-ups-due',
      description: 'announces follow-ups whose time came (follow_up.due), each once',
      schedule: { everySeconds: config.followUpCheckSeconds },
      sharing: 'claimed-rows',
      retries: 'a failed check leaves the follow-ups unclaimed; the next check takes them',
      overlap: 'skip',
      runsOn: 'every-instance',
      overdueAfterSeconds: Math.max(120, 5 * config.followUpCheckSeconds),
      run: () => s.followUpDue.run(),
      backlog: () => s.followUpDue.backlog(),
    },
    {
      name: 'tasks-due',
      description: 'announces tasks whose time came (task.due) to their assignees, each once',
      schedule: { everySeconds: config.followUpCheckSeconds },
      sharing: 'claimed-rows',
      retries: 'a failed check leaves the tasks unclaimed; the next check takes them',
      overlap: 'skip',
      runsOn: 'every-instance',
      overdueAfterSeconds: Math.max(120, 5 * config.followUpCheckSeconds),
      run: () => s.taskDue.run(),
      backlog: () => s.taskDue.backlog(),
    },
    {
      name: 'webhook-deliveries',
      description: 'copies subscribed outbox events into the webhook queue and delivers them, signed',
      schedule: { everySeconds: 1 },
      sharing: 'claimed-rows',
      retries: 'WEBHOOK_RETRY_SCHEDULE, with the same webhook-id; 410 disables the webhook',
      overlap: 'join',
      runsOn: 'every-instance',
      overdueAfterSeconds: 300,
      run: async () => WebhookDeliveryJob.roundOf(await s.webhookDelivery.run()),
      backlog: () => s.webhookDelivery.backlog(),
    },
    {
      name: 'scheduled-sends',
      description: 'sends emails scheduled for later (sendAt) within seconds of their time, each once',
      schedule: { everySeconds: 1 },
      sharing: 'claimed-rows',
      retries:
        'mail server unreachable before anything went: again after 30 s, 1, 5, 15, 60 min, then failed; outcome unknown: the mail server is asked before any new attempt; refused: failed with its reason',
      overlap: 'join',
      runsOn: 'every-instance',
      overdueAfterSeconds: 60,
      run: () => s.scheduledSends.run(),
      backlog: () => s.scheduledSends.backlog(),
      stop: () => s.scheduledSends.stop(),
    },
    {
      name: 'attachment-cleanup',
      description: 'removes kept files of drafts and scheduled sends that nobody owns any more (sent, cancelled, deleted)',
      schedule: { everySeconds: 300 },
      sharing: 'harmless-repeat',
      retries: 'a file that could not be removed is tried again at the next run',
      overlap: 'skip',
      runsOn: 'every-instance',
      overdueAfterSeconds: 3600,
      run: () => s.attachmentCleanup.run(),
      backlog: () => s.attachmentCleanup.backlog(),
    },
  ];
}
