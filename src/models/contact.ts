import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Contact extends Model<InferAttributes<Contact>, InferCreationAttributes<Contact>> {
  declare id: CreationOptional<string>;
  declare userId: string;
  declare emailAccountId: string;
  /** Stored lower-cased so the (user, account, email) uniqueness cannot be dodged by case. */
  declare email: string;
  declare name: string | null;
  declare notes: string | null;
  declare addedAt: CreationOptional<Date>;
  declare lastEmailAt: Date | null;
  /** The company of the address's domain (migration 0027); NULL for a free-mail domain. */
  declare companyId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Contact.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        userId: { type: DataTypes.UUID, allowNull: false },
        emailAccountId: { type: DataTypes.UUID, allowNull: false },
        email: { type: DataTypes.TEXT, allowNull: false },
        name: { type: DataTypes.TEXT, allowNull: true },
        notes: { type: DataTypes.TEXT, allowNull: true },
        addedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        lastEmailAt: { type: DataTypes.DATE, allowNull: true },
        companyId: { type: DataTypes.UUID, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'contacts', modelName: 'Contact' },
    );
  }
}
