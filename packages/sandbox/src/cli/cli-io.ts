/** Where the CLI writes; injectable so commands are testable in-process too. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}
