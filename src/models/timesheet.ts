import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Timesheet extends Model<InferAttributes<Timesheet>, InferCreationAttributes<Timesheet>> {
  declare id: CreationOptional<string>;
  declare userId: string;
  /** The client's file name, sanitised; shown to people, never used as a path. */
  declare fileName: string;
  /** Storage key relative to the timesheet store; internal, never returned. */
  declare filePath: string;
  declare fileType: string;
  declare fileSize: number;
  declare year: number;
  declare month: number;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Timesheet.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        userId: { type: DataTypes.UUID, allowNull: false },
        fileName: { type: DataTypes.TEXT, allowNull: false },
        filePath: { type: DataTypes.TEXT, allowNull: false },
        fileType: { type: DataTypes.TEXT, allowNull: false },
        // bigint comes back from pg as a string; files are at most 10 MB, so a number is exact.
        fileSize: {
          type: DataTypes.BIGINT,
          allowNull: false,
          get(this: Timesheet) {
            return Number(this.getDataValue('fileSize'));
          },
        },
        year: { type: DataTypes.INTEGER, allowNull: false },
        month: { type: DataTypes.INTEGER, allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'timesheets', modelName: 'Timesheet' },
    );
  }
}
