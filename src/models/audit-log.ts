import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class AuditLog extends Model<InferAttributes<AuditLog>, InferCreationAttributes<AuditLog>> {
  declare id: CreationOptional<string>;
  declare action: string;
  declare userId: string | null;
  declare username: string | null;
  /** Who did it: "user:<id>", "cli:<os user>", "sync" — web, CLI and cron are told apart. */
  declare actor: string | null;
  declare success: CreationOptional<boolean>;
  declare ip: string | null;
  declare userAgent: string | null;
  declare details: CreationOptional<Record<string, unknown>>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    AuditLog.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        action: { type: DataTypes.TEXT, allowNull: false },
        userId: { type: DataTypes.UUID, allowNull: true },
        username: { type: DataTypes.TEXT, allowNull: true },
        actor: { type: DataTypes.TEXT, allowNull: true },
        success: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        ip: { type: DataTypes.TEXT, allowNull: true },
        userAgent: { type: DataTypes.TEXT, allowNull: true },
        details: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'audit_logs', modelName: 'AuditLog', updatedAt: false },
    );
  }
}
