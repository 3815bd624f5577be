import { createHmac } from 'node:crypto';
import { sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';

/** The fixture bodies from @kyc/contracts, as the wire carries them. */
export const bodies = {
  v1: JSON.stringify(sampleV1Webhook),
  status: JSON.stringify(sampleStatusWebhook),
} as const;

export const AUTH_KEY = 'kyc_bench_Hq7Yw2Rn9Lc4Vb1X';
export const SW_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const GITHUB_SECRET = 'bench-secret-for-octokit';

export function githubSignature(body: string): string {
  return `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`;
}
