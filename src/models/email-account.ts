import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class EmailAccount extends Model<InferAttributes<EmailAccount>, InferCreationAttributes<EmailAccount>> {
  declare id: CreationOptional<string>;
  declare userId: string;
  declare email: string;
  /** AES-256-GCM ciphertext (see src/crypto/secret-box.ts); never returned by the API. */
  declare emailPassword: string;
  declare jmapAccountId: string;
  declare isPrimary: CreationOptional<boolean>;
  declare isActive: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    EmailAccount.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        userId: { type: DataTypes.UUID, allowNull: false },
        email: { type: DataTypes.TEXT, allowNull: false },
        emailPassword: { type: DataTypes.TEXT, allowNull: false },
        jmapAccountId: { type: DataTypes.TEXT, allowNull: false },
        isPrimary: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        isActive: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'email_accounts', modelName: 'EmailAccount' },
    );
  }
}
