/** The loopback ranges `allowLoopbackTargets` (and `check-endpoint --allow-loopback`) open, and nothing else. */
export const LOOPBACK_NETWORKS: readonly string[] = Object.freeze(['127.0.0.0/8', '::1/128']);
