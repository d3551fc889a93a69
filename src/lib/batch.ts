import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ArrayMaxSize, ArrayMinSize, IsOptional } from 'class-validator';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../core/errors.js';
import type { Ctx } from '../core/context.js';
import { transaction, type TxCtx } from '../core/tx.js';

/**
 * AIP-136 batch methods (CONTRACT-2 §9): one transaction per batch, each id tried on its own
 * savepoint, failures reported by their index in `ids`; with `returnPartialSuccess: false`
 * any failure rolls the whole batch back.
 */

export const MAX_BATCH_IDS = 100;

@InputType()
export class BatchInput {
  @Field(() => [ID], { description: '1 to 100 ids.' })
  @ArrayMinSize(1, { message: 'must hold at least 1 id' })
  @ArrayMaxSize(MAX_BATCH_IDS, { message: `must hold at most ${MAX_BATCH_IDS} ids` })
  ids!: string[];

  @Field(() => Boolean, { nullable: true, defaultValue: true, description: 'False: any failure aborts the batch and nothing changes.' })
  @IsOptional()
  returnPartialSuccess?: boolean;
}

@ObjectType()
export class BatchFailure {
  @Field(() => Int, { description: "The id's 0-based position in ids." })
  index!: number;

  @Field(() => ID)
  id!: string;

  @Field(() => String)
  code!: string;

  @Field(() => String)
  message!: string;
}

@ObjectType()
export class BatchSummary {
  @Field(() => Int)
  total!: number;

  @Field(() => Int)
  succeeded!: number;

  @Field(() => Int)
  failed!: number;
}

export interface BatchOutcome<T> {
  resources: T[];
  failures: BatchFailure[];
  summary: BatchSummary;
  /** True when returnPartialSuccess was false and something failed: nothing was changed. */
  aborted: boolean;
}

class Aborted extends Error {}

/**
 * Runs `each` for every id in one transaction. An AppError of one id rolls back to that id's
 * savepoint and is reported under its index; anything else fails the call.
 */
export async function runBatch<T>(
  ctx: Ctx,
  input: BatchInput,
  each: (tx: TxCtx, id: string, index: number) => Promise<T>,
  /** Runs first, outside the per-id savepoints (locks the batch needs throughout). */
  prepare?: (tx: TxCtx) => Promise<void>,
): Promise<BatchOutcome<T>> {
  const failures: BatchFailure[] = [];
  const resources: T[] = [];
  const total = input.ids.length;
  try {
    await transaction(ctx, async (tx) => {
      const em = tx.em as EntityManager;
      await prepare?.(tx);
      for (const [index, id] of input.ids.entries()) {
        await em.execute('savepoint batch_item');
        try {
          resources.push(await each(tx, id, index));
          await em.execute('release savepoint batch_item');
        } catch (err) {
          await em.execute('rollback to savepoint batch_item');
          // Entities touched by the failed id may hold state the savepoint undid.
          em.clear();
          if (!(err instanceof AppError)) throw err;
          failures.push({ index, id, code: err.code, message: err.message });
        }
      }
      if (failures.length && input.returnPartialSuccess === false) throw new Aborted();
    });
  } catch (err) {
    if (!(err instanceof Aborted)) throw err;
    return { resources: [], failures, summary: { total, succeeded: 0, failed: failures.length }, aborted: true };
  }
  return { resources, failures, summary: { total, succeeded: resources.length, failed: failures.length }, aborted: false };
}
