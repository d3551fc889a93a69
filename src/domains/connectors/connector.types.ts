import { Field, GraphQLISODateTime, ID, ObjectType } from 'type-graphql';

@ObjectType('ConnectorSync', { description: 'What the connector imports from the shop.' })
export class ConnectorSyncType {
  @Field(() => Boolean)
  products!: boolean;

  @Field(() => Boolean)
  orders!: boolean;
}

@ObjectType('PlatformConnector', { description: "A remote shop feeding this store (inbound); its token is never shown." })
export class PlatformConnectorType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  shopDomain!: string;

  @Field(() => String, { description: 'pending, active, uninstalled or error.' })
  status!: string;

  @Field(() => ConnectorSyncType)
  sync!: ConnectorSyncType;

  @Field(() => GraphQLISODateTime, { nullable: true })
  lastEventAt!: string | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When the first import finished.' })
  importedAt!: string | null;

  @Field(() => String, { nullable: true })
  lastError!: string | null;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType('PlatformConnectorInstall', { description: 'Where to send the merchant to install the app, and the single-use state bound to the shop.' })
export class PlatformConnectorInstallType {
  @Field(() => String)
  url!: string;

  @Field(() => ID)
  connectorId!: string;

  @Field(() => String)
  state!: string;
}
