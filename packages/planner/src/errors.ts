/**
 * The few named errors of waves. The CLI maps them to exit codes in one place; anything else is
 * a bug and is rethrown. Expected outcomes (triage, conflicts, refusals) are data, never errors.
 */
export class WavesError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'WavesError';
  }
}

/** Bad input from the user: a flag, a file, a root. Exit code 2. */
export class InputError extends WavesError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InputError';
  }
}

/** A configuration file that does not validate. Exit code 2. */
export class ConfigError extends WavesError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigError';
  }
}
