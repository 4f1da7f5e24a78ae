/** Once an hour, at a minute away from the full hour (when the mail sync's default schedule runs): the retention job. */
export const MAINTENANCE_CRON = '17 * * * *';
