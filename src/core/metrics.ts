/** What modules report for /metrics; the server's metrics module implements it when enabled. */
export interface Metrics {
  request(method: string, route: string, status: number, seconds: number): void;
  delivery(outcome: 'success' | 'failed', seconds: number): void;
}

declare module './context.js' {
  interface Deps {
    metrics?: Metrics;
  }
}
