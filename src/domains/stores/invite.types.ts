import { Field, GraphQLISODateTime, ID, InputType, ObjectType } from 'type-graphql';
import { IsEmail, IsOptional, MaxLength } from 'class-validator';
import { GraphQLJSONObject } from 'graphql-scalars';
import { graphqlEnum } from '../../core/enums.js';
import { JsonDocument, METADATA_MAX_BYTES } from '../../core/input.js';
import { StoreRole } from './store.types.js';

export const INVITE_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;
export const StoreInviteStatus = graphqlEnum('StoreInviteStatus', INVITE_STATUSES, 'Where an invite stands: pending until accepted, revoked or past expiresAt.');

@ObjectType('StoreInvite', { description: 'An invitation mailed to an address to join a store; its token travels only in the mail.' })
export class StoreInviteType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String, { description: 'The address it was sent to: the account that accepts must have this email.' })
  email!: string;

  @Field(() => StoreRole, { description: 'The role the member gets on accepting.' })
  role!: string;

  @Field(() => ID, { description: 'The member who sent it.' })
  invitedBy!: string;

  @Field(() => StoreInviteStatus)
  status!: string;

  @Field(() => Date)
  expiresAt!: Date;

  @Field(() => Date, { nullable: true })
  acceptedAt!: Date | null;

  @Field(() => ID, { nullable: true, description: 'The account that accepted it.' })
  acceptedBy!: string | null;

  @Field(() => Date, { nullable: true })
  revokedAt!: Date | null;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@InputType()
export class StoreInviteCreateInput {
  @Field(() => String)
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(254)
  email!: string;

  @Field(() => StoreRole, { description: 'Only an owner invites an owner.' })
  role!: string;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'In the future and at most 30 days ahead; 7 days when omitted.' })
  @IsOptional()
  expiresAt?: Date | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Kept with the invite and answered back.' })
  @IsOptional()
  @JsonDocument({ maxBytes: METADATA_MAX_BYTES })
  metadata?: Record<string, unknown> | null;
}
