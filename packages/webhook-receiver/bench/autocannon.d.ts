// The few autocannon options and results the bench uses (autocannon ships no types).
declare module 'autocannon' {
  interface AutocannonRequest {
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
  }
  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    /** Stop after this many requests instead of after `duration`. */
    amount?: number;
    requests?: AutocannonRequest[];
  }
  interface AutocannonResult {
    /** `total`: the requests answered (2xx or not) in the run. */
    requests: { average: number; total: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  export default function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
}
