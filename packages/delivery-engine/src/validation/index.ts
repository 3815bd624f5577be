// The validation's public surface, re-exported by the package entry.
export { METADATA_ADDRESSES } from './classify-ip.js';
export { generateAuthKey } from './generate-auth-key.js';
export { type ParsedIp, parseIp } from './parse-ip.js';
export { systemResolver } from './system-resolver.js';
export {
  AUTH_KEY_MAX_LENGTH,
  AUTH_KEY_MIN_GUESSES_LOG10,
  type AuthKeyErrorCode,
  type AuthKeyValidation,
  type ValidateAuthKeyOptions,
  validateAuthKey,
} from './validate-auth-key.js';
export {
  type ValidateWebhookUrlOptions,
  validateWebhookUrl,
  type WebhookUrlValidation,
} from './validate-webhook-url.js';
export { MAX_WEBHOOK_URL_LENGTH, type WebhookUrlErrorCode } from './vet-url.js';
