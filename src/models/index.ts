import type { Sequelize } from 'sequelize';
import { AuditLog } from './audit-log.js';
import { Contact } from './contact.js';
import { Email } from './email.js';
import { EmailAccount } from './email-account.js';
import { MailSyncState } from './mail-sync-state.js';
import { Session } from './session.js';
import { Timesheet } from './timesheet.js';
import { User } from './user.js';

export { AuditLog, Contact, Email, EmailAccount, MailSyncState, Session, Timesheet, User };
export type { Role } from './user.js';
export type { SyncStatus } from './mail-sync-state.js';

/**
 * Sequelize models are bound to one Sequelize instance at a time. The process has one database,
 * so binding here once is enough; tests and benches reuse the same instance.
 */
export function initModels(sequelize: Sequelize): void {
  for (const model of [User, EmailAccount, MailSyncState, Contact, Email, Timesheet, Session, AuditLog]) {
    model.initModel(sequelize);
  }
  User.hasMany(EmailAccount, { foreignKey: 'userId', as: 'emailAccounts', onDelete: 'CASCADE' });
  EmailAccount.belongsTo(User, { foreignKey: 'userId', as: 'user' });
  EmailAccount.hasOne(MailSyncState, { foreignKey: 'emailAccountId', as: 'syncState', onDelete: 'CASCADE' });
  MailSyncState.belongsTo(EmailAccount, { foreignKey: 'emailAccountId', as: 'account' });
  Contact.belongsTo(EmailAccount, { foreignKey: 'emailAccountId', as: 'account' });
  Email.belongsTo(Contact, { foreignKey: 'contactId', as: 'contact' });
  Timesheet.belongsTo(User, { foreignKey: 'userId', as: 'user' });
  Session.belongsTo(User, { foreignKey: 'userId', as: 'user' });
}
