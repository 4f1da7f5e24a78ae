import { DataTypes, literal, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Email extends Model<InferAttributes<Email>, InferCreationAttributes<Email>> {
  declare id: CreationOptional<string>;
  declare userId: string;
  declare emailAccountId: string;
  /** The main correspondent; every participant is also linked through email_contacts. */
  declare contactId: string;
  declare jmapId: string;
  declare messageId: string | null;
  declare threadId: string | null;
  declare inReplyTo: string | null;
  declare from: string | null;
  declare to: string | null;
  declare subject: string | null;
  declare body: string | null;
  declare isRead: CreationOptional<boolean>;
  declare readPending: CreationOptional<boolean>;
  declare date: Date | null;
  /** JMAP's hasAttachment, stored by the sync (migration 0020). */
  declare hasAttachments: CreationOptional<boolean>;
  /** From, To, Cc, Reply-To as [{name, email}] lists (migration 0020); NULL on rows stored before it. */
  /** Sent by the mailbox itself (migration 0028, ADR 0118); kept by the sync. */
  declare outbound: CreationOptional<boolean>;
  declare addresses: CreationOptional<Record<string, Array<{ name: string | null; email: string }>> | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Email.init(
      {
        // The database's own default (a time-ordered id, migration 0015), as for the sync's SQL inserts.
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: literal('crm_uuid_v7()') },
        userId: { type: DataTypes.UUID, allowNull: false },
        emailAccountId: { type: DataTypes.UUID, allowNull: false },
        contactId: { type: DataTypes.UUID, allowNull: false },
        jmapId: { type: DataTypes.TEXT, allowNull: false },
        messageId: { type: DataTypes.TEXT, allowNull: true },
        threadId: { type: DataTypes.TEXT, allowNull: true },
        inReplyTo: { type: DataTypes.TEXT, allowNull: true },
        from: { type: DataTypes.TEXT, allowNull: true },
        to: { type: DataTypes.TEXT, allowNull: true },
        subject: { type: DataTypes.TEXT, allowNull: true },
        body: { type: DataTypes.TEXT, allowNull: true },
        isRead: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        readPending: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        date: { type: DataTypes.DATE, allowNull: true },
        hasAttachments: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        addresses: { type: DataTypes.JSONB, allowNull: true },
        outbound: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'emails', modelName: 'Email' },
    );
  }
}
