import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type SyncStatus = 'idle' | 'syncing' | 'ok' | 'error' | 'auth_failed';

export class MailSyncState extends Model<InferAttributes<MailSyncState>, InferCreationAttributes<MailSyncState>> {
  declare emailAccountId: string;
  declare status: CreationOptional<SyncStatus>;
  /** The JMAP Email state the database reflects; null means a full sync is needed. */
  declare emailState: string | null;
  declare lastAttemptAt: Date | null;
  declare lastSuccessAt: Date | null;
  declare lastError: string | null;
  declare consecutiveFailures: CreationOptional<number>;
  declare nextAttemptAt: Date | null;
  declare requestedAt: Date | null;
  declare lockedBy: string | null;
  declare lockedUntil: Date | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    MailSyncState.init(
      {
        emailAccountId: { type: DataTypes.UUID, primaryKey: true },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'idle' },
        emailState: { type: DataTypes.TEXT, allowNull: true },
        lastAttemptAt: { type: DataTypes.DATE, allowNull: true },
        lastSuccessAt: { type: DataTypes.DATE, allowNull: true },
        lastError: { type: DataTypes.TEXT, allowNull: true },
        consecutiveFailures: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        nextAttemptAt: { type: DataTypes.DATE, allowNull: true },
        requestedAt: { type: DataTypes.DATE, allowNull: true },
        lockedBy: { type: DataTypes.TEXT, allowNull: true },
        lockedUntil: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'mail_sync_states', modelName: 'MailSyncState' },
    );
  }
}
