import { Field, GraphQLISODateTime, ID, InputType, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { IsEmail, IsOptional, Length } from 'class-validator';
import { BatchFailure, BatchInput, BatchSummary } from '../../lib/batch.js';
import { NameText } from '../../core/input.js';

@ObjectType('SupplierRecord', { description: "A supplier of the store; a purchase order created from one keeps a copy in its own supplier block." })
export class SupplierRecordType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: "The store's own code for the supplier." })
  code!: string | null;

  @Field(() => String, { nullable: true })
  email!: string | null;

  @Field(() => String, { nullable: true })
  phone!: string | null;

  @Field(() => String, { nullable: true })
  taxId!: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Free-form, at most 2 KiB.' })
  address!: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: 'Free text, e.g. net 30.' })
  paymentTerms!: string | null;

  @Field(() => String, { nullable: true })
  notes!: string | null;

  @Field(() => GraphQLJSONObject, { description: 'Free-form, at most 2 KiB.' })
  metadata!: Record<string, unknown>;

  @Field(() => GraphQLISODateTime)
  createdAt!: string;

  @Field(() => GraphQLISODateTime)
  updatedAt!: string;
}

@ObjectType()
export class SupplierRecordPage {
  @Field(() => [SupplierRecordType])
  data!: SupplierRecordType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;
}

/** The fields create and update share; on update an absent field is kept and null clears it. */
@InputType()
class SupplierFields {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  code?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsEmail({}, { message: 'must be an email address' })
  email?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 50, { message: 'must be 1 to 50 characters' })
  phone?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  taxId?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  address?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  paymentTerms?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(0, 5000, { message: 'must be at most 5000 characters' })
  notes?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  @IsOptional()
  metadata?: Record<string, unknown> | null;
}

@InputType()
export class SupplierCreateInput extends SupplierFields {
  @Field(() => String)
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name!: string;
}

@InputType()
export class SupplierUpdateInput extends SupplierFields {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @NameText()
  name?: string | null;
}

@InputType()
export class SupplierBatchDeleteInput extends BatchInput {}

@ObjectType()
export class SupplierBatchResult {
  @Field(() => [SupplierRecordType], { description: 'The deleted suppliers.' })
  resources!: SupplierRecordType[];

  @Field(() => [BatchFailure])
  failures!: BatchFailure[];

  @Field(() => BatchSummary)
  summary!: BatchSummary;

  @Field(() => Boolean, { description: 'returnPartialSuccess was false and something failed: nothing changed.' })
  aborted!: boolean;
}
