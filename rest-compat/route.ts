/** One REST route: data, turned into a handler and an OpenAPI entry by the router alone. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface RestRoute {
  method: HttpMethod;
  /** OpenAPI-style path, `{name}` for parameters; each becomes the variable of the same name. */
  path: string;
  summary: string;
  /** One GraphQL operation with one root field; its value is the response body. */
  operation: string;
  /**
   * The variable that receives the JSON body (default `input` when the operation declares it);
   * GraphQL input coercion then refuses unknown fields and wrong types.
   */
  body?: string;
  /** Extra variables computed from the request (path and query variables are mapped by name). */
  variables?: (req: RestRequest) => Record<string, unknown>;
  /** Success status: 200 unless given; 204 sends no body. */
  status?: 200 | 201 | 202 | 204;
  /** Reshape the root field's value; OpenAPI then documents `responseSchema`. */
  result?: (value: any) => unknown;
  responseSchema?: Record<string, unknown>;
  /** No bearer token needed. */
  public?: boolean;
  /** Response headers computed from the result, e.g. Location. */
  tags?: string[];
}

export const route = (r: RestRoute): RestRoute => r;
export const group = (tag: string, routes: RestRoute[]): RestRoute[] => routes.map((r) => ({ ...r, tags: r.tags ?? [tag] }));
