// The sealing keys' public surface, re-exported by the package entry.
export { loadSealingKeys, saveSealingKeys } from './key-file.js';
export {
  formatSealingKeys,
  generateSealingKey,
  parseSealingKeys,
  type SealingKey,
} from './sealing-key.js';
export { createSecretSealer, type SecretSealer } from './secret-sealer.js';
