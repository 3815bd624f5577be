import type { SigningSecretRecord } from '../store/signing-secrets.js';

/** A signing secret as every page, answer and log may show it: its label and times, never its value. */
export interface SigningSecretView {
  readonly label: string;
  /** `current` signs every delivery; `previous` is the old secret of a rotation, signing beside it until `stopsAt`. */
  readonly role: 'current' | 'previous';
  readonly createdAt: string;
  readonly stopsAt: string | null;
}

/** Whether the company's deliveries are signed, and with which secrets (no values). */
export interface SigningSecretStatus {
  readonly signing: boolean;
  readonly secrets: readonly SigningSecretView[];
}

/** A secret with its value: only the answers of create, rotate and reveal carry one. */
export interface RevealedSigningSecret extends SigningSecretView {
  readonly secret: string;
}

export function secretView(record: SigningSecretRecord): SigningSecretView {
  return {
    label: record.label,
    role: record.stopsAt === undefined ? 'current' : 'previous',
    createdAt: new Date(record.createdAt).toISOString(),
    stopsAt: record.stopsAt === undefined ? null : new Date(record.stopsAt).toISOString(),
  };
}

export function revealedSecret(record: SigningSecretRecord): RevealedSigningSecret {
  return { ...secretView(record), secret: record.secret };
}

/** How long ago, in the largest whole unit: "3 h", "2 d", "45 s". */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}
