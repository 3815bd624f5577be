/** Log fields of an error: its name and message, nothing else (no stack, no cause chain). */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { errorName: error.name, errorMessage: error.message };
  return { errorName: typeof error };
}
