import { Arg, Query, Resolver } from 'type-graphql';
import { notFound } from '../../core/errors.js';
import { Allow, policies } from '../../core/policy.js';
import { geoCities, geoStates } from './geo.data.js';
import { GeoCityType, GeoStateType } from './geo.types.js';

@Resolver()
export class GeoResolver {
  @Allow(policies.public())
  @Query(() => [GeoStateType], { description: "A country's states (DZ: the 69 wilayas of 2025), by code." })
  geoStates(@Arg('country', () => String, { description: 'ISO 3166-1 alpha-2; DZ is served.' }) country: string): GeoStateType[] {
    const states = geoStates(country);
    if (!states) throw notFound('country');
    return states;
  }

  @Allow(policies.public())
  @Query(() => [GeoCityType], { description: "A state's cities (DZ: a wilaya's communes), by name." })
  geoCities(@Arg('country', () => String) country: string, @Arg('state', () => String, { description: 'The state code ("16").' }) state: string): GeoCityType[] {
    if (!geoStates(country)) throw notFound('country');
    const cities = geoCities(country, state);
    if (!cities) throw notFound('state');
    return cities;
  }
}
