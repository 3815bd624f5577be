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
    requests: { average: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  export default function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
}
