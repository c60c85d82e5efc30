// One DynamoDB table per entry of functions/tables.ts: the same definitions the local runtime creates.
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { type KeyAttribute, type TableDefinition, type TableName, keyName, keyType, tableNames, tables } from '../functions/tables.js';

const attribute = (key: KeyAttribute) => ({ name: keyName(key), type: keyType(key) === 'N' ? AttributeType.NUMBER : AttributeType.STRING });

export class Data extends Construct {
  readonly tables: Record<TableName, Table>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.tables = Object.fromEntries(tableNames.map((name) => [name, this.table(name, tables[name])])) as Record<TableName, Table>;
  }

  private table(name: TableName, definition: TableDefinition): Table {
    const table = new Table(this, name, {
      partitionKey: attribute(definition.partitionKey),
      sortKey: definition.sortKey === undefined ? undefined : attribute(definition.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: definition.ttlAttribute,
      // Accounts, keys and payments outlive any one deployment of the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const [indexName, index] of Object.entries(definition.indexes ?? {})) {
      table.addGlobalSecondaryIndex({
        indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: index.sortKey === undefined ? undefined : attribute(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }
}
