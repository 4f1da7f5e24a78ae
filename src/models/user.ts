import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type Role = 'admin' | 'member';

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<string>;
  declare username: string;
  declare firstName: string | null;
  declare lastName: string | null;
  /** bcrypt hashes only: never a clear password. */
  declare password: string | null;
  declare tempPassword: string | null;
  declare tempPasswordExpiresAt: Date | null;
  declare changedPassword: CreationOptional<boolean>;
  declare emailSetupSkipped: CreationOptional<boolean>;
  declare role: Role;
  declare lastLogin: Date | null;
  /** Set while the account is disabled (a leaver): no login, no sessions, hidden from the directory. */
  declare disabledAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    User.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        username: { type: DataTypes.TEXT, allowNull: false },
        firstName: { type: DataTypes.TEXT, allowNull: true },
        lastName: { type: DataTypes.TEXT, allowNull: true },
        password: { type: DataTypes.TEXT, allowNull: true },
        tempPassword: { type: DataTypes.TEXT, allowNull: true },
        tempPasswordExpiresAt: { type: DataTypes.DATE, allowNull: true },
        changedPassword: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        emailSetupSkipped: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        role: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'member' },
        lastLogin: { type: DataTypes.DATE, allowNull: true },
        disabledAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'users', modelName: 'User' },
    );
  }
}
