import { Arg, Ctx as GqlCtx, Mutation, Query, Resolver } from 'type-graphql';
import type { Ctx } from '../../core/context.js';
import { Allow, policies } from '../../core/policy.js';
import { ConfigsType, OptionInput, OptionList, OptionPut, OptionsReload, OptionType } from './options.types.js';
import * as options from './options.service.js';

@Resolver()
export class OptionsResolver {
  @Allow(policies.platformAdmin())
  @Query(() => OptionList, { description: 'Every platform option, by key.' })
  options(@GqlCtx() ctx: Ctx): OptionList {
    return options.listOptions(ctx);
  }

  @Allow(policies.platformAdmin())
  @Query(() => OptionType)
  option(@GqlCtx() ctx: Ctx, @Arg('key', () => String) key: string): OptionType {
    return options.getOption(ctx, key);
  }

  @Allow(policies.platformAdmin())
  @Mutation(() => OptionPut, { description: 'Creates or replaces an option; every replica sees it at once.' })
  putOption(@GqlCtx() ctx: Ctx, @Arg('key', () => String) key: string, @Arg('input', () => OptionInput) input: OptionInput): Promise<OptionPut> {
    return options.putOption(ctx, key, input);
  }

  @Allow(policies.platformAdmin())
  @Mutation(() => Boolean)
  async deleteOption(@GqlCtx() ctx: Ctx, @Arg('key', () => String) key: string): Promise<boolean> {
    await options.deleteOption(ctx, key);
    return true;
  }

  @Allow(policies.platformAdmin())
  @Mutation(() => OptionsReload, { description: 'Makes every replica read the options again.' })
  reloadOptions(@GqlCtx() ctx: Ctx): Promise<OptionsReload> {
    return options.reloadOptions(ctx);
  }

  @Allow(policies.public())
  @Query(() => ConfigsType, { description: 'Public platform configuration: public options, features, currencies, languages.' })
  configs(@GqlCtx() ctx: Ctx): ConfigsType {
    return options.configs(ctx);
  }
}
