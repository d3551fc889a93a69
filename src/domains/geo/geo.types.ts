import { Field, ObjectType } from 'type-graphql';

@ObjectType('GeoState', { description: "A country's first-level division (Algeria: a wilaya)." })
export class GeoStateType {
  @Field(() => String, { description: 'Algeria: "01" to "69" (the 2025 division).' })
  code!: string;

  @Field(() => String, { description: 'The Latin (French) name.' })
  name!: string;

  @Field(() => String, { description: 'The Arabic name.' })
  nameAr!: string;
}

@ObjectType('GeoCity', { description: "A state's city (Algeria: a commune)." })
export class GeoCityType {
  @Field(() => String, { description: 'The Latin (French) name.' })
  name!: string;

  @Field(() => String, { description: 'The Arabic name.' })
  nameAr!: string;

  @Field(() => String, { nullable: true, description: 'Null where the dataset knows none.' })
  postalCode!: string | null;
}
