export { decide, type KycAction, type KycDecision } from './act-on-kyc-event.js';
