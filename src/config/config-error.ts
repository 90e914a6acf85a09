/** A configuration value that stops start; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}
